/* A fast RSA-AES server for measuring what RA2 costs the viewer: the
 * server's side of the RFB community specification's RA2 family (RA2 5,
 * RA2ne 6, RA2_256 129, RA2ne_256 130) in C over nettle, written from the
 * specification and sharing no code with the client's rsaaes.c. It does
 * the handshake with one client after another, then relays the session
 * to a backend RFB server that takes security type None (`vncfb bench
 * --replay --serve`): every byte both ways in AES-EAX frames of up to
 * 65535 bytes (RA2, RA2_256), or in the clear (the "ne" types). The
 * Python server (tests/integration/ra2server.py) relays at 3-30 MB/s and
 * set the pace of the first measure; this one seals at nettle's speed
 * on the other core.
 *
 *     ra2relay --backend PORT [--type 129] --password PW [--user NAME]
 *              [--key-bits 2048] [--port P]
 *
 * Prints "READY <port>" and serves on 127.0.0.1 until killed.
 *
 * Threads: the main thread accepts and does each handshake; during a
 * session one more thread carries the client's frames to the backend. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <nettle/aes.h>
#include <nettle/eax.h>
#include <nettle/rsa.h>
#include <nettle/sha1.h>
#include <nettle/sha2.h>

#define FRAME_MAX 65535
#define MAC 16

struct opts {
	int backend, type, key_bits, port;
	const char *password, *user;
};

/* One direction's EAX state: the key, its schedule, the frame counter
 * (a 16-byte little-endian nonce). */
struct dir {
	union {
		struct aes128_ctx a128;
		struct aes256_ctx a256;
	} aes;
	nettle_cipher_func *f;
	struct eax_key key;
	uint8_t nonce[16];
};

struct session {
	int c, b;
	struct dir in, out;
	bool enc;
	/* Plain bytes of the client's stream read ahead of the handshake's
	 * need (the rest of a frame). */
	uint8_t plain[FRAME_MAX];
	size_t off, len;
};

static void rnd(void *ctx, size_t n, uint8_t *dst)
{
	static int fd = -1;

	(void)ctx;
	if (fd < 0)
		fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	while (n > 0) {
		ssize_t k = read(fd, dst, n);

		if (k <= 0) {
			perror("ra2relay: /dev/urandom");
			exit(1);
		}
		dst += k;
		n -= (size_t)k;
	}
}

/* All n bytes read into buf (out false) or written from it: 0, or -1
 * when the peer closed or failed. */
static int xfer(int fd, void *buf, size_t n, bool out)
{
	uint8_t *p = buf;

	while (n > 0) {
		ssize_t k = out ? write(fd, p, n) : read(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int get(int fd, void *buf, size_t n)
{
	return xfer(fd, buf, n, false);
}

static int put(int fd, const void *buf, size_t n)
{
	return xfer(fd, (void *)(uintptr_t)buf, n, true);
}

static void dir_init(struct dir *d, int bits, const uint8_t *key)
{
	if (bits == 128) {
		aes128_set_encrypt_key(&d->aes.a128, key);
		d->f = (nettle_cipher_func *)aes128_encrypt;
	} else {
		aes256_set_encrypt_key(&d->aes.a256, key);
		d->f = (nettle_cipher_func *)aes256_encrypt;
	}
	eax_set_key(&d->key, &d->aes, d->f);
	memset(d->nonce, 0, sizeof(d->nonce));
}

static void dir_next(struct dir *d)
{
	int i;

	for (i = 0; i < 16; i++)
		if (++d->nonce[i] != 0)
			break;
}

/* frame: 2 header bytes, then n bytes of plain text at frame + 2 that
 * are sealed in place, then room for the tag. */
static void seal(struct dir *d, uint8_t *frame, size_t n)
{
	struct eax_ctx e;

	frame[0] = (uint8_t)(n >> 8);
	frame[1] = (uint8_t)n;
	eax_set_nonce(&e, &d->key, &d->aes, d->f, 16, d->nonce);
	eax_update(&e, &d->key, &d->aes, d->f, 2, frame);
	eax_encrypt(&e, &d->key, &d->aes, d->f, n, frame + 2, frame + 2);
	eax_digest(&e, &d->key, &d->aes, d->f, MAC, frame + 2 + n);
	dir_next(d);
}

static int send_sealed(struct session *s, const void *buf, size_t n)
{
	uint8_t frame[2 + 256 + MAC];

	if (!s->enc)
		return put(s->c, buf, n);
	memcpy(frame + 2, buf, n);
	seal(&s->out, frame, n);
	return put(s->c, frame, 2 + n + MAC);
}

/* One frame of the client's into dst: its length, or -1. */
static ssize_t open_frame(int fd, struct dir *d, uint8_t *dst)
{
	uint8_t hdr[2], mac[MAC], want[MAC];
	struct eax_ctx e;
	size_t n;

	if (get(fd, hdr, 2) < 0)
		return -1;
	n = (size_t)hdr[0] << 8 | hdr[1];
	if (get(fd, dst, n) < 0 || get(fd, mac, MAC) < 0)
		return -1;
	eax_set_nonce(&e, &d->key, &d->aes, d->f, 16, d->nonce);
	eax_update(&e, &d->key, &d->aes, d->f, 2, hdr);
	eax_decrypt(&e, &d->key, &d->aes, d->f, n, dst, dst);
	eax_digest(&e, &d->key, &d->aes, d->f, MAC, want);
	if (memcmp(mac, want, MAC) != 0) {
		fprintf(stderr, "ra2relay: a client frame's MAC does not "
				"match\n");
		return -1;
	}
	dir_next(d);
	return (ssize_t)n;
}

/* Exactly n bytes of the client's framed stream. */
static int read_plain(struct session *s, void *buf, size_t n)
{
	uint8_t *p = buf;

	while (n > 0) {
		size_t k;

		if (s->len == 0) {
			ssize_t got = open_frame(s->c, &s->in, s->plain);

			if (got < 0)
				return -1;
			s->off = 0;
			s->len = (size_t)got;
			continue;
		}
		k = n < s->len ? n : s->len;
		memcpy(p, s->plain + s->off, k);
		s->off += k;
		s->len -= k;
		p += k;
		n -= k;
	}
	return 0;
}

static void digest(int bits, const uint8_t *a, size_t an, const uint8_t *b,
		   size_t bn, uint8_t out[32])
{
	if (bits == 128) {
		struct sha1_ctx h;

		sha1_init(&h);
		sha1_update(&h, an, a);
		sha1_update(&h, bn, b);
		sha1_digest(&h, SHA1_DIGEST_SIZE, out);
	} else {
		struct sha256_ctx h;

		sha256_init(&h);
		sha256_update(&h, an, a);
		sha256_update(&h, bn, b);
		sha256_digest(&h, SHA256_DIGEST_SIZE, out);
	}
}

/* The key message: u32 bits, n and e in ceil(bits / 8) bytes each. */
static uint8_t *key_message(unsigned bits, const mpz_t n, const mpz_t e,
			    size_t *len)
{
	size_t size = (bits + 7) / 8;
	uint8_t *m = malloc(4 + 2 * size);

	if (!m)
		return NULL;
	m[0] = (uint8_t)(bits >> 24);
	m[1] = (uint8_t)(bits >> 16);
	m[2] = (uint8_t)(bits >> 8);
	m[3] = (uint8_t)bits;
	nettle_mpz_get_str_256(size, m + 4, n);
	nettle_mpz_get_str_256(size, m + 4 + size, e);
	*len = 4 + 2 * size;
	return m;
}

static int backend_hello(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	uint8_t ver[12], n, types[255], one = 1, res[4];
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), on = 1;

	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (void *)&a, sizeof(a)) < 0)
		goto fail;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
	if (get(fd, ver, 12) < 0 || put(fd, "RFB 003.008\n", 12) < 0 ||
	    get(fd, &n, 1) < 0 || n == 0 || get(fd, types, n) < 0 ||
	    !memchr(types, 1, n) || put(fd, &one, 1) < 0 ||
	    get(fd, res, 4) < 0 || memcmp(res, "\0\0\0\0", 4) != 0)
		goto fail;
	return fd;
fail:
	fprintf(stderr, "ra2relay: the backend on port %d does not take "
			"security type None\n", port);
	if (fd >= 0)
		close(fd);
	return -1;
}

/* The client's frames to the backend, until either closes. */
static void *upstream(void *arg)
{
	struct session *s = arg;
	static uint8_t buf[FRAME_MAX];

	if (s->len > 0 && put(s->b, s->plain + s->off, s->len) < 0)
		goto out;
	for (;;) {
		ssize_t n;

		if (s->enc) {
			n = open_frame(s->c, &s->in, buf);
		} else {
			n = read(s->c, buf, sizeof(buf));
			if (n == 0)
				n = -1;
		}
		if (n < 0 || put(s->b, buf, (size_t)n) < 0)
			break;
	}
out:
	shutdown(s->c, SHUT_RDWR);
	shutdown(s->b, SHUT_RDWR);
	return NULL;
}

/* The backend's bytes to the client, sealed in frames of up to
 * FRAME_MAX, several frames a write. */
static void downstream(struct session *s)
{
	enum { FRAMES = 4 };
	static uint8_t buf[FRAMES][2 + FRAME_MAX + MAC];

	for (;;) {
		struct iovec iov[FRAMES];
		ssize_t n;
		int i, k = 0;

		if (!s->enc) {
			n = read(s->b, &buf[0][0], sizeof(buf[0]));
			if (n <= 0 || put(s->c, buf[0], (size_t)n) < 0)
				break;
			continue;
		}
		for (i = 0; i < FRAMES; i++) {
			iov[i].iov_base = buf[i] + 2;
			iov[i].iov_len = FRAME_MAX;
		}
		n = readv(s->b, iov, FRAMES);
		if (n <= 0)
			break;
		while (n > 0) {
			size_t m = n < FRAME_MAX ? (size_t)n : FRAME_MAX;

			seal(&s->out, buf[k], m);
			iov[k].iov_base = buf[k];
			iov[k].iov_len = 2 + m + MAC;
			n -= (ssize_t)m;
			k++;
		}
		for (i = 0; i < k; i++)
			if (put(s->c, iov[i].iov_base, iov[i].iov_len) < 0)
				goto out;
	}
out:
	shutdown(s->c, SHUT_RDWR);
	shutdown(s->b, SHUT_RDWR);
}

static int handshake(struct session *s, const struct opts *o,
		     const struct rsa_public_key *pub,
		     const struct rsa_private_key *priv)
{
	int bits = o->type == 5 || o->type == 6 ? 128 : 256;
	size_t rlen = (size_t)bits / 8, skey_len, ckey_len = 0, csize;
	uint8_t ver[12], t = (uint8_t)o->type, hi[4], srandom[32],
		crandom[32], h[32], ch[32], k[32], sub, ulen, plen,
		user[256], pw[256], ok[4] = { 0 };
	uint8_t *skey = key_message((unsigned)o->key_bits, pub->n, pub->e,
				    &skey_len), *ckey = NULL, *buf = NULL;
	struct rsa_public_key cpub;
	size_t got;
	uint32_t cbits;
	mpz_t x;
	int ret = -1;

	rsa_public_key_init(&cpub);
	mpz_init(x);
	if (!skey || put(s->c, "RFB 003.008\n", 12) < 0 ||
	    get(s->c, ver, 12) < 0)
		goto out;
	if (put(s->c, (uint8_t[]){ 1, t }, 2) < 0 || get(s->c, &sub, 1) < 0 ||
	    sub != t)
		goto out;
	if (put(s->c, skey, skey_len) < 0 || get(s->c, hi, 4) < 0)
		goto out;
	cbits = (uint32_t)hi[0] << 24 | hi[1] << 16 | hi[2] << 8 | hi[3];
	if (cbits < 1024 || cbits > 8192) {
		fprintf(stderr, "ra2relay: client key of %u bits\n", cbits);
		goto out;
	}
	csize = (cbits + 7) / 8;
	ckey_len = 4 + 2 * csize;
	ckey = malloc(ckey_len);
	buf = malloc(csize + 2 > 1024 ? csize + 2 : 1024);
	if (!ckey || !buf)
		goto out;
	memcpy(ckey, hi, 4);
	if (get(s->c, ckey + 4, 2 * csize) < 0)
		goto out;
	nettle_mpz_set_str_256_u(cpub.n, csize, ckey + 4);
	nettle_mpz_set_str_256_u(cpub.e, csize, ckey + 4 + csize);
	if (!rsa_public_key_prepare(&cpub))
		goto out;
	rnd(NULL, rlen, srandom);
	if (!rsa_encrypt(&cpub, NULL, rnd, rlen, srandom, x))
		goto out;
	buf[0] = (uint8_t)(csize >> 8);
	buf[1] = (uint8_t)csize;
	nettle_mpz_get_str_256(csize, buf + 2, x);
	if (put(s->c, buf, 2 + csize) < 0 || get(s->c, hi, 2) < 0)
		goto out;
	if (((size_t)hi[0] << 8 | hi[1]) != pub->size ||
	    get(s->c, buf, pub->size) < 0)
		goto out;
	nettle_mpz_set_str_256_u(x, pub->size, buf);
	got = rlen;
	if (!rsa_decrypt(priv, &got, crandom, x) || got != rlen) {
		fprintf(stderr, "ra2relay: the client random does not "
				"decrypt\n");
		goto out;
	}
	/* The server writes with the key the client reads with. */
	memcpy(buf, crandom, rlen);
	memcpy(buf + rlen, srandom, rlen);
	digest(bits, buf, rlen, buf + rlen, rlen, k);
	dir_init(&s->out, bits, k);
	digest(bits, srandom, rlen, crandom, rlen, k);
	dir_init(&s->in, bits, k);
	s->enc = true;
	digest(bits, skey, skey_len, ckey, ckey_len, h);
	if (send_sealed(s, h, rlen == 16 ? 20 : 32) < 0 ||
	    read_plain(s, ch, rlen == 16 ? 20 : 32) < 0)
		goto out;
	digest(bits, ckey, ckey_len, skey, skey_len, h);
	if (memcmp(ch, h, rlen == 16 ? 20 : 32) != 0) {
		fprintf(stderr, "ra2relay: the client's hash does not "
				"match\n");
		goto out;
	}
	sub = o->user ? 1 : 2;
	if (send_sealed(s, &sub, 1) < 0 || read_plain(s, &ulen, 1) < 0 ||
	    read_plain(s, user, ulen) < 0 || read_plain(s, &plen, 1) < 0 ||
	    read_plain(s, pw, plen) < 0)
		goto out;
	s->enc = o->type == 5 || o->type == 129;
	if (plen != strlen(o->password) ||
	    memcmp(pw, o->password, plen) != 0 ||
	    (o->user && (ulen != strlen(o->user) ||
			 memcmp(user, o->user, ulen) != 0))) {
		static const char why[] = "Authentication failed";
		uint8_t no[8 + sizeof(why) - 1] = { 0, 0, 0, 1, 0, 0, 0,
						    sizeof(why) - 1 };

		memcpy(no + 8, why, sizeof(why) - 1);
		send_sealed(s, no, sizeof(no));
		goto out;
	}
	if (send_sealed(s, ok, 4) < 0)
		goto out;
	ret = 0;
out:
	memset(pw, 0, sizeof(pw));
	rsa_public_key_clear(&cpub);
	mpz_clear(x);
	free(skey);
	free(ckey);
	free(buf);
	return ret;
}

static int usage(void)
{
	fprintf(stderr, "usage: ra2relay --backend PORT [--type 5|6|129|130] "
			"--password PW [--user NAME] [--key-bits N] "
			"[--port P]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct opts o = { .type = 129, .key_bits = 2048, .password = "" };
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct rsa_public_key pub;
	struct rsa_private_key priv;
	socklen_t alen = sizeof(a);
	int i, l, on = 1;

	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--backend") == 0)
			o.backend = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--type") == 0)
			o.type = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--password") == 0)
			o.password = argv[i + 1];
		else if (strcmp(argv[i], "--user") == 0)
			o.user = argv[i + 1];
		else if (strcmp(argv[i], "--key-bits") == 0)
			o.key_bits = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--port") == 0)
			o.port = atoi(argv[i + 1]);
		else
			return usage();
	}
	if (i != argc || o.backend <= 0 || strlen(o.password) > 255 ||
	    (o.type != 5 && o.type != 6 && o.type != 129 && o.type != 130) ||
	    o.key_bits < 1024 || o.key_bits > 8192)
		return usage();
	rsa_public_key_init(&pub);
	rsa_private_key_init(&priv);
	if (!rsa_generate_keypair(&pub, &priv, NULL, rnd, NULL, NULL,
				  (unsigned)o.key_bits, 17)) {
		fprintf(stderr, "ra2relay: rsa_generate_keypair failed\n");
		return 1;
	}
	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	a.sin_port = htons((uint16_t)o.port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (l < 0 || bind(l, (void *)&a, sizeof(a)) < 0 || listen(l, 4) < 0 ||
	    getsockname(l, (void *)&a, &alen) < 0) {
		perror("ra2relay: listen");
		return 1;
	}
	printf("READY %d\n", ntohs(a.sin_port));
	fflush(stdout);
	for (;;) {
		static struct session s;
		pthread_t up;

		memset(&s, 0, sizeof(s));
		s.c = accept(l, NULL, NULL);
		if (s.c < 0)
			continue;
		s.b = -1;
		setsockopt(s.c, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
		if (handshake(&s, &o, &pub, &priv) < 0) {
			fprintf(stderr, "ra2relay: handshake failed\n");
			close(s.c);
			continue;
		}
		s.b = backend_hello(o.backend);
		if (s.b < 0) {
			close(s.c);
			continue;
		}
		if (pthread_create(&up, NULL, upstream, &s) != 0) {
			close(s.c);
			close(s.b);
			continue;
		}
		downstream(&s);
		pthread_join(up, NULL);
		close(s.c);
		close(s.b);
	}
}
