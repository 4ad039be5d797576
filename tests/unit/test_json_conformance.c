/* SPDX-License-Identifier: MIT */
/*
 * test_json_conformance.c - the JSON tokenizer under the Chrome reader
 * against JSONTestSuite (../shared/corpus/json-test-suite, read in place).
 *
 * 1. stint_json_validate in strict mode (flags 0) accepts every y_ file,
 *    rejects every n_ file with an offset inside the file and a message, and
 *    returns on every i_ file (ASan/UBSan builds check "without a crash").
 * 2. The Chrome container's leniencies do not leak: each n_ document placed
 *    as an args value inside an otherwise valid trace is either rejected by
 *    the Chrome reader (exit 1, an error naming the byte) or accepted only
 *    with a counted repair of one of the documented kinds (trailing comma,
 *    raw control byte, unclosed container at end of input). A silent accept
 *    would mean the trace reader tolerates invalid JSON it does not report.
 * 3. Each y_ document placed the same way reads with exit 0 and no repair.
 * 4. The leniency flags themselves: strict rejects what the lenient mode
 *    counts, and lenient mode never rejects a strict-valid document.
 */
#include "check.h"
#include "read/json.h"
#include "model/model.h"
#include "read/readers.h"

#include <dirent.h>
#include <unistd.h>

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    size_t r;
    while (b && (r = fread(b + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            cap *= 2;
            char *nb = realloc(b, cap);
            if (!nb) {
                free(b);
                b = NULL;
            }
            b = nb;
        }
    }
    fclose(f);
    *len = n;
    return b;
}

static char tmp_path[256];

/* Reads the bytes as a Chrome trace; returns the exit code, fills repairs. */
static int read_chrome_bytes(const char *buf, size_t len, uint64_t repairs[STINT_REPAIR_COUNT], char *err,
                             size_t errcap)
{
    FILE *f = fopen(tmp_path, "wb");
    if (!f)
        return -1;
    fwrite(buf, 1, len, f);
    fclose(f);
    struct stint_model m;
    if (stint_model_init(&m, STINT_MODEL_KEEP_ARGS) != 0)
        return -1;
    struct stint_read_opts o = {.format = "chrome", .quiet = 1};
    int rc = stint_read_trace(tmp_path, &m, &o);
    memcpy(repairs, m.repairs, sizeof m.repairs);
    snprintf(err, errcap, "%s", m.error ? m.error : "");
    stint_model_free(&m);
    return rc;
}

/* A valid one-event trace whose args value is the document doc. */
static char *embed(const char *doc, size_t n, size_t *out_len)
{
    static const char head[] = "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1,\"args\":{\"v\":";
    static const char tail[] = "}}]\n";
    size_t hl = sizeof head - 1, tl = sizeof tail - 1;
    char *b = malloc(hl + n + tl);
    if (!b)
        return NULL;
    memcpy(b, head, hl);
    memcpy(b + hl, doc, n);
    memcpy(b + hl + n, tail, tl);
    *out_len = hl + n + tl;
    return b;
}


static void leniency_flags(void)
{
    static const struct {
        const char *doc;
        unsigned needs; /* the leniency that makes it valid */
    } cases[] = {
        {"[1,]", STINT_JSON_TRAILING_COMMA},
        {"{\"a\":1,}", STINT_JSON_TRAILING_COMMA},
        {"[[],{},]", STINT_JSON_TRAILING_COMMA},
        {"[\"a\nb\"]", STINT_JSON_CONTROL_CHARS},
        {"[\"\t\"]", STINT_JSON_CONTROL_CHARS},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t off = 99;
        const char *msg = NULL;
        size_t n = strlen(cases[i].doc);
        CHECK(stint_json_validate(cases[i].doc, n, 0, &off, &msg) != 0);
        CHECK(msg != NULL && off <= n);
        CHECK(stint_json_validate(cases[i].doc, n, cases[i].needs, &off, &msg) == 0);
    }
    /* leniencies never extend to these */
    static const char *const never[] = {"[1,,2]", "[,]", "{,}", "{\"a\":1,,}", "[1 2]", "[01]", "[NaN]",
                                        "[\"\\x\"]", "[1]x", "{\"a\" 1}", "[1,]]"};
    for (size_t i = 0; i < sizeof never / sizeof never[0]; i++) {
        size_t off;
        const char *msg;
        int r = stint_json_validate(never[i], strlen(never[i]), STINT_JSON_TRAILING_COMMA | STINT_JSON_CONTROL_CHARS,
                                    &off, &msg);
        if (r == 0)
            fprintf(stderr, "lenient mode accepted %s\n", never[i]);
        CHECK(r != 0);
    }
}

int main(void)
{
    SKIP_WITHOUT_CORPUS(corpus);
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/json-test-suite", corpus);
    DIR *d = opendir(dir);
    if (!d) {
        printf("SKIP: %s is absent\n", dir);
        return 77;
    }
    snprintf(tmp_path, sizeof tmp_path, "/tmp/stint_json_conf_%d.json", (int)getpid());
    leniency_flags();
    int ny = 0, nn = 0, ni = 0, n_rejected = 0, n_repaired = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *name = e->d_name;
        size_t nl = strlen(name);
        if (nl < 7 || strcmp(name + nl - 5, ".json") != 0 || name[1] != '_')
            continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        size_t len;
        char *buf = slurp(path, &len);
        REQUIRE(buf != NULL);
        size_t off = 0;
        const char *msg = NULL;
        int r = stint_json_validate(buf, len, 0, &off, &msg);
        int rl = stint_json_validate(buf, len, STINT_JSON_TRAILING_COMMA | STINT_JSON_CONTROL_CHARS, &off, &msg);
        if (r == 0)
            CHECK(rl == 0); /* lenient never rejects what strict accepts */
        uint64_t rep[STINT_REPAIR_COUNT];
        char err[1024];
        size_t elen;
        char *emb = embed(buf, len, &elen);
        REQUIRE(emb != NULL);
        if (name[0] == 'y') {
            ny++;
            if (r != 0)
                fprintf(stderr, "%s: rejected at byte %zu: %s\n", name, off, msg);
            CHECK(r == 0);
            int rc = read_chrome_bytes(emb, elen, rep, err, sizeof err);
            uint64_t any = 0;
            for (int k = 0; k < STINT_REPAIR_COUNT; k++)
                any += rep[k];
            if (rc != 0 || any)
                fprintf(stderr, "%s embedded in a trace: rc %d, %llu repairs, %s\n", name, rc,
                        (unsigned long long)any, err);
            CHECK(rc == 0 && any == 0);
        } else if (name[0] == 'n') {
            nn++;
            if (r == 0)
                fprintf(stderr, "%s: accepted (must be rejected)\n", name);
            CHECK(r != 0);
            CHECK(msg != NULL && off <= len);
            int rc = read_chrome_bytes(emb, elen, rep, err, sizeof err);
            uint64_t lenient = rep[STINT_REPAIR_TRAILING_COMMA] + rep[STINT_REPAIR_CONTROL_CHAR] +
                               rep[STINT_REPAIR_MISSING_CLOSE];
            if (rc == 1 && strstr(err, "byte ") != NULL)
                n_rejected++;
            else if (rc == 0 && lenient > 0)
                n_repaired++;
            else {
                fprintf(stderr, "%s embedded in a trace: rc %d, leniency repairs %llu, error \"%s\"\n", name, rc,
                        (unsigned long long)lenient, err);
                CHECK(0);
            }
        } else if (name[0] == 'i') {
            ni++; /* any verdict; reaching here means no crash or hang */
            (void)read_chrome_bytes(emb, elen, rep, err, sizeof err);
        }
        free(emb);
        free(buf);
    }
    closedir(d);
    unlink(tmp_path);
    fprintf(stderr, "json-test-suite: %d y, %d n (%d rejected inside a trace, %d repaired by a leniency), %d i\n",
            ny, nn, n_rejected, n_repaired, ni);
    CHECK(ny == 95 && nn == 188 && ni == 35);
    CHECK_DONE();
}
