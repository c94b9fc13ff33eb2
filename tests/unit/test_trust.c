/* Unit test: the known-hosts store (trust.c) and the security type
 * table (sectype.c). The store: first contact recorded (no terminal),
 * the same key accepted, another refused with the store unchanged, an
 * IPv6 host bracketed, --fingerprint and --insecure never writing, a
 * malformed line refused; fingerprints parsed in both of openssl's
 * forms. The types: --security parsed, the default order and what the
 * policy leaves out, the names of what a server offers. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check.h"
#include "net/sectype.h"
#include "net/trust.h"

static char dir[] = "/tmp/vncfb-trust-XXXXXX";

static char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_store(void)
{
	char path[300], want[400], text[TRUST_FP_TEXT], before[4096];
	struct trust_opts o = {0};
	uint8_t a[TRUST_FP_LEN], b[TRUST_FP_LEN], c[TRUST_FP_LEN];
	const char *s;
	FILE *f;

	memset(a, 0xa1, sizeof(a));
	memset(b, 0xb2, sizeof(b));
	snprintf(path, sizeof(path), "%s/sub/known_hosts", dir);
	o.store = path;
	/* First contact, no terminal: recorded. */
	CHECK_EQ(trust_check(&o, "10.0.0.7", 5900, "certificate", a), 0);
	trust_format(a, text);
	snprintf(want, sizeof(want), "10.0.0.7:5900 %s\n", text);
	s = slurp(path);
	CHECK(s && !strcmp(s, want), "store '%s'", s ? s : "(none)");
	/* Known: accepted; another port is another entry. */
	CHECK_EQ(trust_check(&o, "10.0.0.7", 5900, "certificate", a), 0);
	CHECK_EQ(trust_check(&o, "10.0.0.7", 5901, "certificate", b), 0);
	CHECK_EQ(trust_check(&o, "::1", 5900, "RSA key", b), 0);
	s = slurp(path);
	CHECK(s && strstr(s, "[::1]:5900 SHA256:b2b2"), "store '%s'",
	      s ? s : "");
	snprintf(before, sizeof(before), "%s", s ? s : "");
	/* Changed: refused, the store as it was. */
	CHECK_EQ(trust_check(&o, "10.0.0.7", 5900, "certificate", b), -EPERM);
	CHECK_EQ(trust_check(&o, "::1", 5900, "RSA key", a), -EPERM);
	/* Changed in its last byte alone: every byte is compared. */
	memcpy(c, a, sizeof(c));
	c[TRUST_FP_LEN - 1] ^= 1;
	CHECK_EQ(trust_check(&o, "10.0.0.7", 5900, "certificate", c), -EPERM);
	s = slurp(path);
	CHECK(s && !strcmp(s, before), "store changed: '%s'", s ? s : "");
	/* A pin: only that key, the store untouched. */
	trust_format(b, text);
	o.pin = text;
	CHECK_EQ(trust_check(&o, "10.0.0.7", 5900, "certificate", b), 0);
	CHECK_EQ(trust_check(&o, "10.0.0.8", 5900, "certificate", a), -EPERM);
	o.pin = NULL;
	/* --insecure: anything, nothing written. */
	o.insecure = true;
	CHECK_EQ(trust_check(&o, "10.0.0.9", 5900, "certificate", a), 0);
	o.insecure = false;
	s = slurp(path);
	CHECK(s && !strcmp(s, before), "store written: '%s'", s ? s : "");
	/* A line that is not a fingerprint. */
	f = fopen(path, "a");
	if (f) {
		fputs("# comment\n10.0.0.10:5900 SHA256:nothex\n", f);
		fclose(f);
	}
	CHECK_EQ(trust_check(&o, "10.0.0.10", 5900, "certificate", a), -EINVAL);
	/* A store that cannot be made. */
	o.store = "/proc/no/such/known_hosts";
	CHECK(trust_check(&o, "10.0.0.11", 5900, "certificate", a) < 0);
}

static void test_fingerprints(void)
{
	uint8_t fp[TRUST_FP_LEN], back[TRUST_FP_LEN];
	char text[TRUST_FP_TEXT], colons[200];
	size_t i, n = 7;

	for (i = 0; i < sizeof(fp); i++)
		fp[i] = (uint8_t)(i * 37 + 5);
	trust_format(fp, text);
	CHECK_EQ(strlen(text), 71u);
	CHECK_EQ(trust_parse(text, back), 0);
	CHECK(!memcmp(fp, back, sizeof(fp)));
	/* openssl's form: upper case, colons. */
	memcpy(colons, "SHA256:", 7);
	for (i = 0; i < sizeof(fp); i++)
		n += (size_t)snprintf(colons + n, sizeof(colons) - n, "%s%02X",
				      i ? ":" : "", fp[i]);
	CHECK_EQ(trust_parse(colons, back), 0);
	CHECK(!memcmp(fp, back, sizeof(fp)));
	CHECK_EQ(trust_parse("SHA256:abc", back), -EINVAL);
	CHECK_EQ(trust_parse(text + 7, back), -EINVAL);
	text[70] = 'g';
	CHECK_EQ(trust_parse(text, back), -EINVAL);
}

static bool says(const char *refusal, const char *words)
{
	return refusal && strstr(refusal, words);
}

static void test_sectypes(void)
{
	const struct sectype *t[SECTYPE_MAX];
	const char *bad = NULL;
	uint32_t offered[] = {5, 19, 30, 200};
	uint32_t subs[] = {256, 262};
	char buf[300];
	size_t n, i;

	CHECK_EQ(sectype_parse("x509plain, VncAuth None", t, &n, &bad), 0);
	CHECK(n == 3 && !strcmp(t[0]->name, "X509Plain") &&
	      !strcmp(t[1]->name, "VncAuth") && !strcmp(t[2]->name, "None"));
	CHECK_EQ(sectype_parse("VncAuth,Kerberos", t, &n, &bad), -EINVAL);
	CHECK(bad && !strcmp(bad, "Kerberos"));
	CHECK_EQ(sectype_parse(" , ", t, &n, &bad), -EINVAL);
	/* The default: RSA-AES (when there) first, no Plain, no anonymous
	 * TLS. */
	n = sectype_policy(NULL, false, false, true, t);
	CHECK(n > 4 && !strcmp(t[0]->name, "RA2_256") &&
	      !strcmp(t[4]->name, "X509Plain"));
	for (i = 0; i < n; i++)
		CHECK(!(t[i]->flags & (SEC_CLEAR | SEC_ANON)), "%s",
		      t[i]->name);
	n = sectype_policy(NULL, false, false, false, t);
	CHECK(n > 0 && !strcmp(t[0]->name, "X509Plain"));
	/* Named: kept, in the list's order. */
	n = sectype_policy("Plain,TLSPlain", false, false, false, t);
	CHECK(n == 2 && !strcmp(t[0]->name, "Plain"));
	/* --insecure adds anonymous TLS; --ca keeps X509 alone. */
	n = sectype_policy(NULL, false, true, false, t);
	for (i = 0; i < n && strcmp(t[i]->name, "TLSPlain"); i++)
		;
	CHECK(i < n);
	n = sectype_policy(NULL, true, false, false, t);
	for (i = 0; i < n; i++)
		CHECK(t[i]->flags & SEC_X509, "%s under --ca", t[i]->name);
	/* The second line, after the negotiation: --ca wants X509 TLS
	 * even where --security names Plain (and Plain gets through only
	 * where named); anonymous TLS only under --insecure or named. */
	CHECK(says(sectype_refusal(SEC_CLEAR, true, false, false, true),
		   "--ca requires"));
	CHECK(sectype_refusal(SEC_CLEAR, false, false, false, true) == NULL);
	CHECK(says(sectype_refusal(SEC_CLEAR, false, false, false, false),
		   "in the clear"));
	CHECK(sectype_refusal(SEC_X509, true, false, false, false) == NULL);
	CHECK(says(sectype_refusal(SEC_ANON, false, false, false, false),
		   "anonymous TLS"));
	CHECK(sectype_refusal(SEC_ANON, false, true, false, false) == NULL);
	CHECK(sectype_refusal(SEC_ANON, false, false, true, false) == NULL);
	CHECK(sectype_refusal(SEC_ANON, true, true, false, false) == NULL);
	CHECK(says(sectype_refusal(SEC_ANON, true, false, true, false),
		   "--ca requires"));
	sectype_describe(buf, sizeof(buf), offered, 4, false);
	CHECK(!strcmp(buf, "RA2 (5), VeNCrypt (19), DH (30), unknown (200)"),
	      "'%s'", buf);
	sectype_describe(buf, sizeof(buf), subs, 2, true);
	CHECK(!strcmp(buf, "Plain (256), X509Plain (262)"), "'%s'", buf);
}

int main(void)
{
	char cmd[100];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	unsetenv("XDG_CONFIG_HOME");
	test_store();
	test_fingerprints();
	test_sectypes();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return check_done("trust");
}
