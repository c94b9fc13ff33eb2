/* Security type names and vncfb's order (sectype.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "net/sectype.h"

#define VC SEC_VENCRYPT
#define TLS_ANON (SEC_ANON | SEC_ENCRYPTED)
#define TLS_X509 (SEC_X509 | SEC_ENCRYPTED)

/* TigerVNC's viewer tries RSA-AES first, then X509, then anonymous TLS,
 * then the rest; vncfb adds Apple's and UltraVNC's Diffie-Hellman types
 * (the password is encrypted, the session is not) before VncAuth. Plain
 * (VeNCrypt 256) sends the password as it is: last, and only when named
 * (sectype_policy). TLS (18) is the old anonymous TLS of vino. */
static const struct sectype types[] = {
    {"RA2_256", SEC_RA2_256, 0, SEC_RSA | SEC_ENCRYPTED | SEC_USER},
    {"RA2", SEC_RA2, 0, SEC_RSA | SEC_ENCRYPTED | SEC_USER},
    {"RA2ne_256", SEC_RA2NE_256, 0, SEC_RSA | SEC_USER},
    {"RA2ne", SEC_RA2NE, 0, SEC_RSA | SEC_USER},
    {"X509Plain", VC, 262, TLS_X509 | SEC_USER},
    {"X509Vnc", VC, 261, TLS_X509 | SEC_PASSWORD},
    {"X509None", VC, 260, TLS_X509},
    {"TLSPlain", VC, 259, TLS_ANON | SEC_USER},
    {"TLSVnc", VC, 258, TLS_ANON | SEC_PASSWORD},
    {"TLSNone", VC, 257, TLS_ANON},
    {"TLS", 18, 0, TLS_ANON},
    {"DH", SEC_DH, 0, SEC_USER},
    {"MSLogonII", SEC_MSLOGON2, 0, SEC_USER},
    {"VncAuth", 2, 0, SEC_PASSWORD},
    {"None", 1, 0, 0},
    {"Plain", VC, 256, SEC_USER | SEC_CLEAR},
};

_Static_assert(sizeof(types) / sizeof(types[0]) <= SECTYPE_MAX,
	       "SECTYPE_MAX holds every type");

const struct sectype *sectype_all(size_t *n)
{
	*n = sizeof(types) / sizeof(types[0]);
	return types;
}

const struct sectype *sectype_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcasecmp(types[i].name, name))
			return &types[i];
	/* TigerVNC's VeNCrypt is the whole family: its X509 and TLS
	 * subtypes are named one by one here. */
	return NULL;
}

int sectype_parse(const char *list, const struct sectype *out[SECTYPE_MAX],
		  size_t *n, const char **bad)
{
	static char unknown[64];
	const struct sectype *t;
	char word[64];
	size_t i, k = 0, len;

	*n = 0;
	while (*list) {
		len = strcspn(list, ", \t");
		if (len == 0) {
			list++;
			continue;
		}
		if (len >= sizeof(word))
			len = sizeof(word) - 1;
		memcpy(word, list, len);
		word[len] = '\0';
		list += strcspn(list, ", \t");
		t = sectype_by_name(word);
		if (!t) {
			snprintf(unknown, sizeof(unknown), "%s", word);
			*bad = unknown;
			return -EINVAL;
		}
		for (i = 0; i < k; i++)
			if (out[i] == t)
				break;
		if (i == k && k < SECTYPE_MAX)
			out[k++] = t;
	}
	if (k == 0) {
		*bad = "";
		return -EINVAL;
	}
	*n = k;
	return 0;
}

size_t sectype_policy(const char *list, bool ca, bool insecure, bool have_rsa,
		      const struct sectype *out[SECTYPE_MAX])
{
	const struct sectype *in[SECTYPE_MAX];
	const char *bad;
	size_t i, n, k = 0;

	if (!list || sectype_parse(list, in, &n, &bad) < 0) {
		n = sizeof(types) / sizeof(types[0]);
		for (i = 0; i < n; i++)
			in[i] = &types[i];
		list = NULL;
	}
	for (i = 0; i < n; i++) {
		unsigned f = in[i]->flags;

		if ((f & SEC_RSA) && !have_rsa)
			continue;
		if (ca && !(f & SEC_X509) && !((f & SEC_ANON) && insecure))
			continue;
		if ((f & SEC_ANON) && !insecure && !list)
			continue;
		if ((f & SEC_CLEAR) && !list)
			continue;
		out[k++] = in[i];
	}
	return k;
}

const char *sectype_refusal(unsigned got, bool ca, bool insecure,
			    bool anon_named, bool clear_named)
{
	if ((got & SEC_ANON) && !insecure && !anon_named)
		return "offers only anonymous TLS, which cannot prove the "
		       "server's identity (give its CA with --ca, or accept "
		       "the risk with --insecure)";
	if (ca && !(got & SEC_X509) && !((got & SEC_ANON) && insecure))
		return "does not offer X509 TLS (VeNCrypt), which --ca "
		       "requires";
	if ((got & SEC_CLEAR) && !clear_named)
		return "asks for the password in the clear (VeNCrypt "
		       "Plain), which vncfb sends only when --security "
		       "names Plain";
	return NULL;
}

const char *sectype_top_name(uint32_t top)
{
	switch (top) {
	case 1:
		return "None";
	case 2:
		return "VncAuth";
	case SEC_RA2:
		return "RA2";
	case SEC_RA2NE:
		return "RA2ne";
	case 7:
		return "SSPI";
	case 8:
		return "SSPIne";
	case 16:
		return "Tight";
	case 17:
		return "Ultra";
	case 18:
		return "TLS";
	case SEC_VENCRYPT:
		return "VeNCrypt";
	case 20:
		return "SASL";
	case 21:
		return "MD5";
	case 22:
		return "xvp";
	case SEC_DH:
		return "DH";
	case 33:
		return "Apple Kerberos";
	case 35:
		return "Apple session";
	case 36:
		return "Apple DH";
	case SEC_MSLOGON2:
		return "MSLogonII";
	case SEC_RA2_256:
		return "RA2_256";
	case SEC_RA2NE_256:
		return "RA2ne_256";
	case 0xfffffffa:
		return "MSLogon";
	}
	if (top >= 3 && top <= 4)
		return "RealVNC";
	if (top >= 9 && top <= 15)
		return "RealVNC";
	return NULL;
}

const char *sectype_sub_name(uint32_t sub)
{
	size_t i;

	switch (sub) {
	case 1:
		return "None";
	case 2:
		return "VncAuth";
	case 263:
		return "TLSSASL";
	case 264:
		return "X509SASL";
	}
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].top == VC && types[i].sub == sub)
			return types[i].name;
	return NULL;
}

void sectype_describe(char *buf, size_t len, const uint32_t *t, size_t n,
		      bool sub)
{
	size_t i, used = 0;
	const char *name;
	int w;

	if (!len)
		return;
	buf[0] = '\0';
	for (i = 0; i < n && used < len; i++) {
		name = sub ? sectype_sub_name(t[i]) : sectype_top_name(t[i]);
		w = snprintf(buf + used, len - used, "%s%s (%u)", i ? ", " : "",
			     name ? name : "unknown", t[i]);
		if (w < 0)
			break;
		used += (size_t)w;
	}
	if (n == 0)
		snprintf(buf, len, "nothing");
}
