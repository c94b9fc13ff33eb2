/* wsdisplay framebuffer description to pixel format (portable). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "wsfb_format.h"

void wsfb_from_ginfo(uint32_t width, uint32_t height, uint32_t depth,
		     uint32_t cmsize, uint32_t linebytes, struct wsfb_info *fi)
{
	memset(fi, 0, sizeof(*fi));
	fi->width = width;
	fi->height = height;
	fi->bpp = depth == 15 ? 16 : depth;
	fi->stride = linebytes ? linebytes : width * ((fi->bpp + 7) / 8);
	switch (depth) {
	case 8:
		fi->pixeltype = WSFB_FMT_CI;
		fi->cmap_entries = cmsize ? cmsize : 256;
		break;
	case 15:
		fi->pixeltype = WSFB_FMT_RGB;
		fi->r_off = 10, fi->r_size = 5;
		fi->g_off = 5, fi->g_size = 5;
		fi->b_off = 0, fi->b_size = 5;
		break;
	case 16:
		fi->pixeltype = WSFB_FMT_RGB;
		fi->r_off = 11, fi->r_size = 5;
		fi->g_off = 5, fi->g_size = 6;
		fi->b_off = 0, fi->b_size = 5;
		break;
	case 24:
	case 32:
		fi->pixeltype = WSFB_FMT_RGB;
		fi->r_off = 16, fi->r_size = 8;
		fi->g_off = 8, fi->g_size = 8;
		fi->b_off = 0, fi->b_size = 8;
		break;
	default:
		/* 1, 2, 4 bpp: left for wsfb_pixfmt to refuse. */
		fi->pixeltype = cmsize ? WSFB_FMT_CI : WSFB_FMT_GREYSCALE;
		fi->cmap_entries = cmsize;
		break;
	}
}

static bool host_big_endian(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 0;
}

int wsfb_pixfmt(const struct wsfb_info *fi, struct pixfmt *fmt, bool *cmap,
		char *why, size_t whylen)
{
	char dummy[1];

	if (!why) {
		why = dummy;
		whylen = sizeof(dummy);
	}
	memset(fmt, 0, sizeof(*fmt));
	*cmap = false;
	if (fi->width == 0 || fi->height == 0 || fi->width > WSFB_MAX_DIM ||
	    fi->height > WSFB_MAX_DIM) {
		snprintf(why, whylen, "size %ux%u out of range", fi->width,
			 fi->height);
		return -EINVAL;
	}
	if (fi->bpp != 8 && fi->bpp != 16 && fi->bpp != 24 && fi->bpp != 32) {
		snprintf(why, whylen,
			 "%u bits per pixel is not supported "
			 "(8, 16, 24 and 32 are)",
			 fi->bpp);
		return -ENOTSUP;
	}
	if ((uint64_t)fi->stride < (uint64_t)fi->width * (fi->bpp / 8)) {
		snprintf(why, whylen, "stride %u below one row of %u pixels",
			 fi->stride, fi->width);
		return -EINVAL;
	}
	fmt->bpp = (uint8_t)fi->bpp;
	/* Framebuffers hold pixels in the CPU's byte order, as wsfb(4) and
	 * genfb(4) draw them. */
	fmt->big_endian = fi->bpp > 8 && host_big_endian();
	switch (fi->pixeltype) {
	case WSFB_FMT_RGB:
		if (fi->r_size < 1 || fi->r_size > 8 || fi->g_size < 1 ||
		    fi->g_size > 8 || fi->b_size < 1 || fi->b_size > 8) {
			snprintf(why, whylen,
				 "channels of %u/%u/%u bits are "
				 "not supported (1 to 8 are)",
				 fi->r_size, fi->g_size, fi->b_size);
			return -ENOTSUP;
		}
		if (fi->r_off > 31 || fi->g_off > 31 || fi->b_off > 31) {
			snprintf(why, whylen,
				 "channel offsets %u/%u/%u out "
				 "of range",
				 fi->r_off, fi->g_off, fi->b_off);
			return -EINVAL;
		}
		fmt->r_shift = (uint8_t)fi->r_off;
		fmt->g_shift = (uint8_t)fi->g_off;
		fmt->b_shift = (uint8_t)fi->b_off;
		fmt->r_bits = (uint8_t)fi->r_size;
		fmt->g_bits = (uint8_t)fi->g_size;
		fmt->b_bits = (uint8_t)fi->b_size;
		fmt->depth = (uint8_t)(fi->r_size + fi->g_size + fi->b_size);
		if (!pixfmt_valid(fmt)) {
			snprintf(why, whylen,
				 "channels overlap or do not fit "
				 "%u bits (red %u+%u, green %u+%u, blue %u+%u)",
				 fi->bpp, fi->r_off, fi->r_size, fi->g_off,
				 fi->g_size, fi->b_off, fi->b_size);
			return -EINVAL;
		}
		return 0;
	case WSFB_FMT_CI:
		if (fi->bpp != 8 || fi->cmap_entries < 256) {
			snprintf(why, whylen,
				 "colour-indexed %u bpp with %u "
				 "colours is not supported (8 bpp, 256 are)",
				 fi->bpp, fi->cmap_entries);
			return -ENOTSUP;
		}
		/* Program a 3-3-2 map so that RFB's true colour 8 bpp format
		 * lands on screen unchanged. */
		*cmap = true;
		return pixfmt_from_name("rgb332", fmt);
	case WSFB_FMT_GREYSCALE:
		snprintf(why, whylen,
			 "greyscale framebuffers are not "
			 "supported");
		return -ENOTSUP;
	default:
		snprintf(why, whylen, "pixel type %u (YUV) is not supported",
			 fi->pixeltype);
		return -ENOTSUP;
	}
}

int wsfb_map_len(const struct wsfb_info *fi, size_t pagesize, size_t *len)
{
	uint64_t need, rounded;

	if ((uint64_t)fi->stride < (uint64_t)fi->width * ((fi->bpp + 7) / 8) ||
	    fi->height > WSFB_MAX_DIM || fi->fboffset > (uint64_t)1 << 40 ||
	    pagesize == 0 || (pagesize & (pagesize - 1)))
		return -EINVAL;
	need = fi->fboffset + (uint64_t)fi->stride * fi->height;
	if (fi->fbsize && need > fi->fbsize)
		return -EINVAL;
	rounded = (need + pagesize - 1) & ~((uint64_t)pagesize - 1);
	if (rounded > SIZE_MAX)
		return -EINVAL;
	*len = (size_t)rounded;
	return 0;
}

void wsfb_cmap_332(uint8_t red[256], uint8_t green[256], uint8_t blue[256])
{
	struct pixfmt f;
	unsigned i;

	/* The same expansion as pixfmt_unpack, so screenshots of the mapping
	 * and the screen show the same colours. */
	pixfmt_from_name("rgb332", &f);
	for (i = 0; i < 256; i++)
		pixfmt_unpack(&f, i, &red[i], &green[i], &blue[i]);
}
