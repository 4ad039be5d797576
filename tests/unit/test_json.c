/* SPDX-License-Identifier: MIT */
/*
 * test_json.c - the strict JSON tokenizer: fixed cases, streaming (MORE)
 * behaviour, the leniency flags, and JSONTestSuite's parsing cases from
 * ../shared/corpus/json-test-suite (y_ must pass, n_ must fail, i_ must not
 * crash), read in place.
 */
#include "check.h"
#include "read/json.h"

#include <dirent.h>

static int valid(const char *s, unsigned flags)
{
    size_t off;
    const char *msg;
    return stint_json_validate(s, strlen(s), flags, &off, &msg) == 0;
}

static void check_suite(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/json-test-suite", dir);
    DIR *d = opendir(path);
    if (!d) {
        CHECK_SKIP_PART("JSONTestSuite: %s is absent", path);
        return;
    }
    int y = 0, n = 0, i = 0, yfail = 0, nfail = 0;
    struct dirent *e;
    static char buf[1 << 22];
    while ((e = readdir(d))) {
        const char *nm = e->d_name;
        if ((nm[0] != 'y' && nm[0] != 'n' && nm[0] != 'i') || nm[1] != '_')
            continue;
        char fp[4700];
        snprintf(fp, sizeof fp, "%s/%s", path, nm);
        FILE *f = fopen(fp, "rb");
        if (!f)
            continue;
        size_t len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        size_t off;
        const char *msg;
        int ok = stint_json_validate(buf, len, 0, &off, &msg) == 0;
        if (nm[0] == 'y') {
            y++;
            if (!ok) {
                yfail++;
                fprintf(stderr, "  rejected %s: byte %zu: %s\n", nm, off, msg);
            }
        } else if (nm[0] == 'n') {
            n++;
            if (ok) {
                nfail++;
                fprintf(stderr, "  accepted %s\n", nm);
            }
        } else
            i++;
    }
    closedir(d);
    fprintf(stderr, "JSONTestSuite: %d y_ (%d rejected), %d n_ (%d accepted), %d i_ (no crash)\n", y, yfail, n, nfail, i);
    CHECK(y > 0);
    CHECK_EQ_I64(yfail, 0);
    CHECK_EQ_I64(nfail, 0);
}

int main(void)
{
    CHECK(valid("{\"a\":[1,2.5e-3,true,false,null,\"x\\u00e9\\ud83d\\ude00\"]}", 0));
    CHECK(valid(" [] ", 0));
    CHECK(valid("\"\xc3\xa9\"", 0));
    CHECK(!valid("[1,]", 0));
    CHECK(valid("[1,]", STINT_JSON_TRAILING_COMMA));
    CHECK(!valid("{\"a\":1,}", 0));
    CHECK(valid("{\"a\":1,}", STINT_JSON_TRAILING_COMMA));
    CHECK(!valid("\"a\nb\"", 0));
    CHECK(valid("\"a\nb\"", STINT_JSON_CONTROL_CHARS));
    CHECK(!valid("\"\xff\"", 0));          /* invalid UTF-8 */
    CHECK(!valid("\"\xc0\xaf\"", 0));      /* overlong */
    CHECK(!valid("\"\xed\xa0\x80\"", 0));  /* surrogate in UTF-8 */
    CHECK(!valid("01", 0));
    CHECK(!valid("1.", 0));
    CHECK(!valid("[1 2]", 0));
    CHECK(!valid("", 0));
    CHECK(!valid("[", 0));
    CHECK(!valid("nul", 0));
    CHECK(!valid("{\"a\" 1}", 0));
    /* the error names the byte offset */
    size_t off = 0;
    const char *msg = NULL;
    CHECK(stint_json_validate("[1, x]", 6, 0, &off, &msg) != 0);
    CHECK_EQ_I64(off, 4);
    CHECK(msg != NULL);
    /* deep nesting: 10,000 levels are fine, no recursion */
    {
        enum { D = 10000 };
        static char deep[2 * D + 1];
        memset(deep, '[', D);
        memset(deep + D, ']', D);
        CHECK(stint_json_validate(deep, 2 * D, 0, &off, &msg) == 0);
        CHECK(stint_json_validate(deep, 2 * D - 1, 0, &off, &msg) != 0);
    }
    /* streaming: a window that ends inside a token says MORE and does not move */
    {
        char w[64 + STINT_JSON_PAD] = "{\"key\": \"val";
        struct stint_json j = {.p = w, .end = w + strlen(w), .at_eof = 0};
        CHECK_EQ_I64(stint_json_skip(&j), STINT_JSON_MORE);
        CHECK(j.p == w);
        j.at_eof = 1;
        CHECK_EQ_I64(stint_json_skip(&j), STINT_JSON_ERR);
        char n[32 + STINT_JSON_PAD] = "12.5";
        struct stint_json k = {.p = n, .end = n + 4, .at_eof = 0};
        const char *s;
        size_t len;
        CHECK_EQ_I64(stint_json_number(&k, &s, &len), STINT_JSON_MORE);
        k.at_eof = 1;
        CHECK_EQ_I64(stint_json_number(&k, &s, &len), STINT_JSON_OK);
        CHECK_EQ_I64(len, 4);
    }
    /* unescape */
    {
        const char *src = "a\\n\\u00e9\\ud83d\\ude00\\/";
        char out[64];
        size_t n = stint_json_unescape(src, strlen(src), out);
        CHECK_EQ_I64(n, 1 + 1 + 2 + 4 + 1);
        CHECK(memcmp(out, "a\n\xc3\xa9\xf0\x9f\x98\x80/", n) == 0);
    }
    /* lone surrogates: accepted, decoded as U+FFFD, counted once each */
    {
        static const struct {
            const char *text;
            uint64_t lone;
        } cases[] = {
            {"\"\\ud83d\\ude00\"", 0},        /* a pair */
            {"\"a\\ud800b\"", 1},               /* high alone */
            {"\"\\udc00\"", 1},                 /* low alone */
            {"\"\\ud800\\u0041\"", 1},         /* high, then no low */
            {"\"\\ud800\\ud800\\udc00\"", 1}, /* high alone, then a pair */
            {"\"\\udc00\\ud800\"", 2},         /* reversed pair: two lone */
            {"\"\\ud800\"", 1},                 /* high right before the quote */
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            char w[64 + STINT_JSON_PAD] = {0};
            size_t tl = strlen(cases[i].text);
            memcpy(w, cases[i].text, tl);
            struct stint_json j = {.p = w, .end = w + tl, .at_eof = 1};
            const char *s;
            size_t len;
            int esc;
            CHECK_EQ_I64(stint_json_string(&j, &s, &len, &esc), STINT_JSON_OK);
            CHECK_EQ_I64(j.lone_surrogates, cases[i].lone);
            /* the same string inside a skipped value is counted the same way */
            char v[80 + STINT_JSON_PAD] = {0};
            int vl = snprintf(v, 80, "{\"k\":[%s]}", cases[i].text);
            struct stint_json k = {.p = v, .end = v + vl, .at_eof = 1};
            CHECK_EQ_I64(stint_json_skip(&k), STINT_JSON_OK);
            CHECK_EQ_I64(k.lone_surrogates, cases[i].lone);
        }
        /* decoded as U+FFFD (EF BF BD) */
        const char *src = "a\\ud800b\\udc00";
        char out[32];
        size_t n = stint_json_unescape(src, strlen(src), out);
        CHECK_EQ_I64(n, 8);
        CHECK(memcmp(out, "a\xef\xbf\xbd" "b\xef\xbf\xbd", 8) == 0);
        /* a string cut by the window: MORE counts nothing, the retry counts once */
        char w[64 + STINT_JSON_PAD] = "\"\\ud800x\\u0001 and more\"";
        struct stint_json j = {.p = w, .end = w + 10, .at_eof = 0, .flags = STINT_JSON_CONTROL_CHARS};
        const char *s;
        size_t len;
        CHECK_EQ_I64(stint_json_string(&j, &s, &len, NULL), STINT_JSON_MORE);
        CHECK_EQ_I64(j.lone_surrogates, 0);
        j.end = w + strlen(w);
        CHECK_EQ_I64(stint_json_string(&j, &s, &len, NULL), STINT_JSON_OK);
        CHECK_EQ_I64(j.lone_surrogates, 1);
        /* and a raw control byte cut by the window is counted once too */
        char c[64 + STINT_JSON_PAD] = "\"a\nb and more\"";
        struct stint_json q = {.p = c, .end = c + 4, .at_eof = 0, .flags = STINT_JSON_CONTROL_CHARS};
        CHECK_EQ_I64(stint_json_string(&q, &s, &len, NULL), STINT_JSON_MORE);
        q.end = c + strlen(c);
        CHECK_EQ_I64(stint_json_string(&q, &s, &len, NULL), STINT_JSON_OK);
        CHECK_EQ_I64(q.control_chars, 1);
    }
    const char *dir = check_corpus_dir();
    if (dir)
        check_suite(dir);
    else
        CHECK_SKIP_PART("JSONTestSuite: the shared corpus is absent");
    CHECK_DONE();
}
