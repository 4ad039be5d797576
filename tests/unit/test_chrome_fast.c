/* SPDX-License-Identifier: MIT */
/*
 * test_chrome_fast.c - the Chrome reader's fast paths must give what its
 * general paths give.
 *
 * The event parser's internals are static, so this test compiles
 * chrome_event.c itself, with its external function renamed (the copy
 * linked into the CLI modules stays untouched). Checked here:
 *   - stint_scan_num (tsparse.h) against stint_parse_ts / stint_parse_i64 on
 *     random numbers of every shape, and that the common shapes take it;
 *   - the key table: every key, and near misses ("tsx", "pi", "names",
 *     "p\u0068" as raw bytes, a key with a raw 0 byte) that must stay
 *     unknown; a key written with escapes is the key it decodes to;
 *   - parse_event on random events written with random blanks, key orders,
 *     number spellings, unknown keys and strings the fast paths refuse, one
 *     after another through the same key guesses: every variant must give
 *     the fields (values, not texts) the generator put in;
 *   - every cut of an event at a window end: MORE with the cursor back at the
 *     '{', or an error at the end of the input, never a half event;
 *   - error messages and offsets of malformed events;
 *   - the name cache: strings that share length and first and last 8 bytes
 *     get their own ids;
 *   - a whole file across several input windows against the events written.
 */
#define stint_i_chrome_events test_chrome_events
#include "read/chrome_event.c"

#include "check.h"

#include <stdio.h>
#include <unistd.h>

static uint64_t rng_state = 0x243F6A8885A308D3ULL;

static uint64_t rnd(void) { return check_xorshift(&rng_state); }

static unsigned rnd_below(unsigned n)
{
    return (unsigned)(rnd() % n);
}

/* A padded copy of s: the window the reader would see (0 after the end). */
static char win[1 << 16];

static const char *padded(const char *s, size_t len)
{
    memcpy(win, s, len);
    memset(win + len, 0, STINT_JSON_PAD);
    return win;
}

/* ---- stint_scan_num ---------------------------------------------------------------- */

static size_t random_number(char *b)
{
    size_t n = 0;
    unsigned shape = rnd_below(10);
    if (shape == 0 && rnd_below(2))
        b[n++] = '-';
    unsigned nint = 1 + rnd_below(shape < 3 ? 19 : 16);
    for (unsigned i = 0; i < nint; i++)
        b[n++] = (char)('0' + (i == 0 && shape != 1 ? 1 + rnd_below(9) : rnd_below(10)));
    if (rnd_below(3)) {
        b[n++] = '.';
        unsigned nf = rnd_below(14) + (shape == 2 ? 0 : 1);
        for (unsigned i = 0; i < nf; i++)
            b[n++] = (char)('0' + rnd_below(10));
    }
    if (shape == 3) {
        b[n++] = rnd_below(2) ? 'e' : 'E';
        if (rnd_below(2))
            b[n++] = rnd_below(2) ? '-' : '+';
        b[n++] = (char)('0' + rnd_below(10));
    }
    return n;
}

static void check_scan_num(void)
{
    char b[64];
    int fast = 0;
    for (int t = 0; t < 200000; t++) {
        size_t n = random_number(b);
        static const char ends[] = ",}] \n\r\tx.";
        b[n] = ends[rnd_below(sizeof ends - 1)];
        const char *s = padded(b, n + 1);
        for (int64_t mult = 1; mult <= 1000; mult += 999) {
            int64_t got = 0, want = 0;
            const char *q = stint_scan_num(s, mult, &got);
            if (!q)
                continue;
            fast++;
            size_t len = (size_t)(q - s);
            /* it reads a prefix that is a number by itself... */
            int rc = mult == 1 ? stint_parse_i64(s, len, &want) : stint_parse_ts(s, len, mult, &want);
            CHECK(rc == 0);
            CHECK_EQ_I64(got, want);
            /* ...and when a number may end there, all of the number */
            if (ends_number((unsigned char)b[len]))
                CHECK(len == n);
            if (rc != 0 || got != want) {
                fprintf(stderr, "  text '%.*s' mult %lld\n", (int)n, b, (long long)mult);
                return;
            }
        }
    }
    CHECK(fast > 100000);
    /* the shapes of real traces take the fast path */
    static const struct {
        const char *s;
        int64_t mult, ns;
    } common[] = {
        {"5000004544.269,", 1000, 5000004544269LL}, {"250000009377,", 1000, 250000009377000LL},
        {"7.151}", 1000, 7151},                       {"0.5 ", 1000, 500},
        {"0,", 1000, 0},                               {"12.3456789012,", 1000, 12345},
        {"123456789012345.9,", 1000, 123456789012345900LL}, {"4120,", 1, 4120},
        {"0}", 1, 0},
    };
    for (size_t i = 0; i < sizeof common / sizeof common[0]; i++) {
        int64_t v = -1;
        const char *s = padded(common[i].s, strlen(common[i].s));
        const char *q = stint_scan_num(s, common[i].mult, &v);
        CHECK(q && q == s + strlen(common[i].s) - 1);
        CHECK_EQ_I64(v, common[i].ns);
    }
    /* and the others go to the general parser */
    static const char *const other[] = {"-1,", "01,", "1.,", "1234567890123456,", ".5,", "x"};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        int64_t v;
        CHECK(stint_scan_num(padded(other[i], strlen(other[i])), 1000, &v) == NULL);
    }
    int64_t v;
    CHECK(stint_scan_num(padded("12.5,", 5), 1, &v) == NULL);
    /* an exponent stops it; the caller sees no number end there */
    const char *s = padded("1e3,", 4), *q = stint_scan_num(s, 1000, &v);
    CHECK(q == s + 1 && !ends_number((unsigned char)*q));
}

/* ---- keys -------------------------------------------------------------------------- */

static void check_keys(void)
{
    static const struct {
        const char *k;
        enum ekey code;
    } known[] = {{"ph", K_PH},   {"ts", K_TS},           {"id", K_ID},           {"bp", K_BP},
                 {"s", K_S},     {"dur", K_DUR},         {"pid", K_PID},         {"tid", K_TID},
                 {"cat", K_CAT}, {"tts", K_TTS},         {"id2", K_ID2},         {"name", K_NAME},
                 {"tdur", K_TDUR}, {"args", K_ARGS},     {"bind_id", K_BIND_ID}, {"flow_in", K_FLOW_IN},
                 {"flow_out", K_FLOW_OUT}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        const char *k = padded(known[i].k, strlen(known[i].k));
        CHECK_EQ_I64(key_code(k, strlen(known[i].k)), known[i].code);
    }
    static const char *const near[] = {"tsx", "pi", "names", "p", "phh", "Ph", "PH", "t", "flow_ou", "flow_outt",
                                       "bind_i", "args ", " ts", "cats", "nam", "p\\u0068", "id3", "tdu", "dura",
                                       "", "ts\"", "ppid", "tidd", "ttss", "flow_inn", "bind_idd"};
    for (size_t i = 0; i < sizeof near / sizeof near[0]; i++)
        CHECK_EQ_I64(key_code(padded(near[i], strlen(near[i])), strlen(near[i])), K_OTHER);
    /* a raw 0 byte inside a key (a control byte, accepted leniently) */
    CHECK_EQ_I64(key_code(padded("ts\0", 3), 3), K_OTHER);
    CHECK_EQ_I64(key_code(padded("\0ts", 3), 3), K_OTHER);
}

/* ---- parse_event on generated events ------------------------------------------------- */

/* One event's fields as the generator meant them. */
struct want {
    int has[K_FLOW_OUT + 1];
    const char *text[K_FLOW_OUT + 1]; /* string bodies (raw, as written) */
    int64_t val[K_FLOW_OUT + 1];      /* numbers: ns for times, integers for pid/tid */
};

static const char *const names[] = {
    "aten::mm", "cudaLaunchKernel", "ac2g", "x", "", "nn.Module: Dropout_10",
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int, float)",
    "with \\\"quotes\\\" and \\\\", "caf\xc3\xa9", "tab\tinside", "exactly16bytes!!", "sixteen+1 bytes!!",
};

static const char *blank(void)
{
    static const char *const b[] = {"", "", "", " ", " ", "\n  ", "\t", "  "};
    return b[rnd_below(8)];
}

/* Writes a number for ns microseconds (as ns / 1000 with 3 decimals) in a random spelling. */
static void write_us(char **p, int64_t ns)
{
    int64_t ip = ns / 1000, fp = ns % 1000;
    switch (rnd_below(5)) {
    case 0:
        *p += sprintf(*p, "%lld.%03lld", (long long)ip, (long long)fp);
        break;
    case 1: /* trailing digits below 1 ns are truncated */
        *p += sprintf(*p, "%lld.%03lld%u", (long long)ip, (long long)fp, rnd_below(1000));
        break;
    case 2: /* the same value with an exponent */
        if (ip == 0)
            goto plain;
        *p += sprintf(*p, "%lld%03lld0e-4", (long long)ip, (long long)fp);
        break;
    case 3:
    plain:
        if (fp == 0) {
            *p += sprintf(*p, "%lld", (long long)ip);
            break;
        }
        /* fall through */
    default:
        *p += sprintf(*p, "%lld.%03lld", (long long)ip, (long long)fp);
        while ((*p)[-1] == '0')
            (*p)--;
        if ((*p)[-1] == '.')
            (*p)--;
        break;
    }
}

/* A random event: the text into out (returns its length) and the fields into w. */
static size_t random_event(char *out, struct want *w)
{
    memset(w, 0, sizeof *w);
    enum ekey keys[16];
    size_t nk = 0;
    static const enum ekey pool[] = {K_PH, K_NAME, K_CAT, K_TS, K_DUR, K_PID, K_TID, K_TTS, K_TDUR, K_ARGS};
    for (size_t i = 0; i < sizeof pool / sizeof pool[0]; i++)
        if (rnd_below(8))
            keys[nk++] = pool[i];
    /* mostly one order (as real traces), sometimes shuffled */
    if (rnd_below(4) == 0)
        for (size_t i = nk; i > 1; i--) {
            size_t k = rnd_below((unsigned)i);
            enum ekey t = keys[i - 1];
            keys[i - 1] = keys[k];
            keys[k] = t;
        }
    char *p = out;
    *p++ = '{';
    p += sprintf(p, "%s", blank());
    for (size_t i = 0; i < nk; i++) {
        if (i)
            p += sprintf(p, "%s,%s", blank(), blank());
        if (rnd_below(6) == 0) { /* an unknown key first, some of them near misses */
            static const char *const junk[] = {"\"tsx\": 1", "\"pi\": \"x\"", "\"names\": [1, 2]",
                                               "\"p\\u0069\": \"B\"",
                                               "\"Ph\": \"i\"", "\"t\": {\"ts\": 5}", "\"args \": 3",
                                               "\"ts2\": null", "\"durations\": true"};
            p += sprintf(p, "%s%s,%s", junk[rnd_below(9)], blank(), blank());
        }
        enum ekey k = keys[i];
        static const char *const kname[] = {[K_PH] = "ph", [K_NAME] = "name", [K_CAT] = "cat", [K_TS] = "ts",
                                            [K_DUR] = "dur", [K_PID] = "pid", [K_TID] = "tid", [K_TTS] = "tts",
                                            [K_TDUR] = "tdur", [K_ARGS] = "args"};
        p += sprintf(p, "\"%s\"%s:%s", kname[k], blank(), blank());
        w->has[k] = 1;
        switch (k) {
        case K_PH: {
            static const char *const ph[] = {"X", "B", "E", "i", "M", "C", "s", "\\u0058", "XY", "\xc3\xa9"};
            w->text[k] = ph[rnd_below(10)];
            p += sprintf(p, "\"%s\"", w->text[k]);
            break;
        }
        case K_NAME:
        case K_CAT:
            w->text[k] = names[rnd_below(sizeof names / sizeof names[0])];
            p += sprintf(p, "\"%s\"", w->text[k]);
            break;
        case K_PID:
        case K_TID:
            w->val[k] = rnd_below(3) ? (int64_t)rnd_below(100000) : (int64_t)(rnd() >> 12);
            if (rnd_below(10) == 0)
                w->val[k] = -w->val[k];
            p += sprintf(p, "%lld", (long long)w->val[k]);
            break;
        case K_ARGS:
            p += sprintf(p, "{\"a\": [1, \"}\"], \"ts\": 3}");
            break;
        default: /* times */
            w->val[k] = rnd_below(2) ? 5000000000000LL + (int64_t)(rnd() % 10000000000000ULL)
                                      : (int64_t)(rnd() % 100000000ULL);
            write_us(&p, w->val[k]);
            break;
        }
    }
    p += sprintf(p, "%s}", blank());
    return (size_t)(p - out);
}

/* Checks that e holds what w describes. */
static int event_matches(struct creader *r, const struct event *e, const struct want *w)
{
    int ok = 1;
    const struct span *sp[K_FLOW_OUT + 1] = {[K_PH] = &e->ph, [K_NAME] = &e->name, [K_CAT] = &e->cat,
                                             [K_TS] = &e->ts, [K_DUR] = &e->dur,   [K_PID] = &e->pid,
                                             [K_TID] = &e->tid, [K_TTS] = &e->tts, [K_TDUR] = &e->tdur};
    for (int k = 0; k <= K_FLOW_OUT; k++) {
        if (!sp[k])
            continue;
        if (!w->has[k]) {
            ok &= !sp[k]->set;
            continue;
        }
        ok &= sp[k]->set;
        if (!sp[k]->set)
            continue;
        int64_t v;
        if (k == K_PH || k == K_NAME || k == K_CAT)
            ok &= sp[k]->str && sp[k]->n == strlen(w->text[k]) && !memcmp(sp[k]->s, w->text[k], sp[k]->n) &&
                  sp[k]->esc == (strchr(w->text[k], '\\') != NULL);
        else if (k == K_PID || k == K_TID)
            ok &= span_i64(r, sp[k], &v) == 0 && v == w->val[k];
        else
            ok &= parse_time(r, sp[k], &v) == 0 && v == w->val[k];
    }
    ok &= (e->args_a != NULL) == w->has[K_ARGS];
    return ok;
}

static void check_events(void)
{
    static char text[4096];
    struct stint_model m;
    REQUIRE(stint_model_init(&m, 0) == 0);
    static struct creader r;
    r.m = &m;
    ehints_init(&r.hints);
    int fails = 0;
    for (int t = 0; t < 30000 && fails < 5; t++) {
        struct want w;
        size_t n = random_event(text, &w);
        struct stint_json j = {.p = padded(text, n), .end = win + n, .flags = STINT_JSON_TRAILING_COMMA | STINT_JSON_CONTROL_CHARS,
                               .at_eof = 1};
        struct event e;
        int rc = parse_event(&j, &e, &r.hints);
        int ok = rc == STINT_JSON_OK && j.p == win + n && event_matches(&r, &e, &w);
        CHECK(ok);
        if (!ok) {
            fprintf(stderr, "  event: %.*s (rc %d%s%s)\n", (int)n, text, rc, rc ? ": " : "", rc ? j.err : "");
            fails++;
            continue;
        }
        /* every cut at a window end: MORE (cursor back at '{'), or at the end of
         * the input an error; never an event */
        if (t % 16 == 0)
            for (size_t cut = 1; cut < n; cut++) {
                for (int eof = 0; eof < 2; eof++) {
                    struct stint_json c = {.p = padded(text, cut), .end = win + cut,
                                           .flags = STINT_JSON_TRAILING_COMMA | STINT_JSON_CONTROL_CHARS, .at_eof = eof};
                    int crc = parse_event(&c, &e, &r.hints);
                    int cok = eof ? crc == STINT_JSON_ERR : crc == STINT_JSON_MORE && c.p == win;
                    CHECK(cok);
                    if (!cok) {
                        fprintf(stderr, "  cut %zu eof %d rc %d: %.*s\n", cut, eof, crc, (int)n, text);
                        fails++;
                        cut = n;
                        break;
                    }
                }
            }
    }
    free(r.scratch);
    stint_model_free(&m);
}

/* Guesses from one event must not catch the near misses of the next. */
static void check_guesses(void)
{
    struct ehints h;
    ehints_init(&h);
    static const struct {
        const char *text;
        int ts_set, ph_set;
    } seq[] = {
        {"{\"ts\": 1, \"ph\": \"X\"}", 1, 1},   {"{\"tsx\": 1, \"ph\": \"X\"}", 0, 1},
        {"{\"ts\": 1, \"ph\": \"X\"}", 1, 1},   {"{\"t\": 1, \"p\": \"X\"}", 0, 0},
        {"{\"ts\":1,\"ph\":\"X\"}", 1, 1},     {"{\"ts\":1,\"phh\":\"X\"}", 1, 0},
        {"{\"ts\" :1,\"p\\u0068\":\"X\"}", 1, 1}, {"{\"ts\": 1, \"ph\": \"X\"}", 1, 1},
        {"{\"ts\" :1,\"p\\u0068x\":\"X\"}", 1, 0}, {"{\"\\u0074s\" :1,\"\\u0070\\u0068\":\"X\"}", 1, 1},
        {"{\"ts\":\t1, \"ph\":\n\"X\"}", 1, 1}, {"{\"ts\": null, \"ph\": \"X\", \"ts\": 2}", 1, 1},
        {"{\"ts\": 2, \"ph\": \"X\", \"ts\": null}", 0, 1},
    };
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        size_t n = strlen(seq[i].text);
        struct stint_json j = {.p = padded(seq[i].text, n), .end = win + n, .flags = STINT_JSON_TRAILING_COMMA, .at_eof = 1};
        struct event e;
        CHECK(parse_event(&j, &e, &h) == STINT_JSON_OK);
        CHECK_EQ_I64(e.ts.set, seq[i].ts_set);
        CHECK_EQ_I64(e.ph.set, seq[i].ph_set);
        if (e.ts.set)
            CHECK(e.ts.num == SPAN_NUM_US_NS && (e.ts.v == 1000 || e.ts.v == 2000));
    }
}

/* The pid/tid memo: equal bytes only. */
static void check_memo(void)
{
    struct ehints h;
    ehints_init(&h);
    static struct creader r;
    static const struct {
        const char *text;
        int rc;
        int64_t pid; /* when rc is OK: the value, or -1 for "not an integer" */
    } seq[] = {
        {"{\"pid\": 4120, \"tid\": 1}", STINT_JSON_OK, 4120}, {"{\"pid\": 4120, \"tid\": 1}", STINT_JSON_OK, 4120},
        {"{\"pid\": 41201, \"tid\": 1}", STINT_JSON_OK, 41201}, {"{\"pid\": 4120}", STINT_JSON_OK, 4120},
        {"{\"pid\": 4120.5}", STINT_JSON_OK, -1}, {"{\"pid\": 4120}", STINT_JSON_OK, 4120},
        {"{\"pid\": 4120e1}", STINT_JSON_OK, -1}, {"{\"pid\": 4120}", STINT_JSON_OK, 4120},
        {"{\"pid\": 4120", STINT_JSON_MORE, 0},  {"{\"pid\": 412", STINT_JSON_MORE, 0},
        {"{\"pid\": 4120 , \"tid\": 1}", STINT_JSON_OK, 4120}, {"{\"pid\": 4120 , \"tid\": 1}", STINT_JSON_OK, 4120},
        {"{\"pid\": 4120 ", STINT_JSON_MORE, 0},  {"{\"pid\": 0}", STINT_JSON_OK, 0},
        {"{\"pid\": 01}", STINT_JSON_ERR, 0},    {"{\"pid\": 0}", STINT_JSON_OK, 0},
    };
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        size_t n = strlen(seq[i].text);
        struct stint_json j = {.p = padded(seq[i].text, n), .end = win + n, .flags = STINT_JSON_TRAILING_COMMA,
                               .at_eof = seq[i].rc != STINT_JSON_MORE};
        struct event e;
        int rc = parse_event(&j, &e, &h);
        CHECK_EQ_I64(rc, seq[i].rc);
        if (rc != STINT_JSON_OK)
            continue;
        int64_t v = -1;
        if (span_i64(&r, &e.pid, &v) != 0)
            v = -1;
        CHECK_EQ_I64(v, seq[i].pid);
    }
}

/* Malformed events: the messages and offsets the general paths give. */
static void check_errors(void)
{
    static const struct {
        const char *text;
        int rc;
        const char *err;
        size_t at;
        uint64_t trailing;
    } cases[] = {
        {"{\"ph\":\"X\" \"ts\":1}", STINT_JSON_ERR, "expected ',' or '}' in event object", 10, 0},
        {"{\"ph\" \"X\"}", STINT_JSON_ERR, "expected ':' after key in event object", 6, 0},
        {"{\"ph\":\"X\",}", STINT_JSON_OK, NULL, 0, 1},
        {"{\"ph\":\"X\", }", STINT_JSON_OK, NULL, 0, 1},
        {"{,}", STINT_JSON_ERR, "expected a string key in event object", 1, 0},
        {"{\"ph\":\"X\",,\"ts\":1}", STINT_JSON_ERR, "expected a string key in event object", 10, 0},
        {"{\"ts\":01}", STINT_JSON_ERR, NULL, 0, 0},
        {"{\"ts\":1.}", STINT_JSON_ERR, NULL, 0, 0},
        {"{\"pid\":12x}", STINT_JSON_ERR, NULL, 0, 0},
        {"{\"ph\":\"X\"", STINT_JSON_ERR, "input ends inside an event object", 0, 0},
        {"{}", STINT_JSON_OK, NULL, 0, 0},
        {"{ }", STINT_JSON_OK, NULL, 0, 0},
    };
    struct ehints h;
    ehints_init(&h);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = strlen(cases[i].text);
        struct stint_json j = {.p = padded(cases[i].text, n), .end = win + n,
                               .flags = STINT_JSON_TRAILING_COMMA | STINT_JSON_CONTROL_CHARS, .at_eof = 1};
        struct event e;
        int rc = parse_event(&j, &e, &h);
        CHECK_EQ_I64(rc, cases[i].rc);
        if (cases[i].err) {
            CHECK_STR(j.err, cases[i].err);
            CHECK_EQ_I64(j.err_at - win, (int64_t)cases[i].at);
        }
        CHECK_EQ_U64(j.trailing_commas, cases[i].trailing);
    }
}

/* ---- the name cache ------------------------------------------------------------------ */

static void check_cache(void)
{
    struct stint_model m;
    REQUIRE(stint_model_init(&m, 0) == 0);
    static struct creader r;
    memset(&r, 0, sizeof r);
    r.m = &m;
    /* same length, same first and last 8 bytes, different middles; and short
     * strings that differ in one byte; each looked up twice */
    static char text[64 * 40];
    size_t at = 0;
    for (int round = 0; round < 2; round++)
        for (unsigned i = 0; i < 40; i++) {
            char s[64];
            int n;
            if (i < 20)
                n = snprintf(s, sizeof s, "abcdefgh_%c%c_12345678", 'a' + i % 5, 'a' + i / 5);
            else
                n = snprintf(s, sizeof s, "%.*s%c", (int)(i % 16), "0123456789abcdef", 'A' + i % 7);
            memcpy(text + at, s, (size_t)n);
            memset(text + at + n, 0, 16);
            struct span sp = {.s = text + at, .n = (uint32_t)n, .str = 1, .set = 1};
            size_t len;
            const char *got = stint_model_str(&m, intern_span(&r, &sp), &len);
            CHECK(len == (size_t)n && !memcmp(got, s, len));
            at += (size_t)n + 16;
            if (at + 80 > sizeof text)
                at = 0;
        }
    free(r.scratch);
    stint_model_free(&m);
}

/* ---- a whole file across input windows ----------------------------------------------- */

static void check_file(void)
{
    char path[] = "/tmp/stint_chrome_fastXXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    FILE *f = fdopen(fd, "w");
    REQUIRE(f != NULL);
    /* over two 4 MiB windows of X events with varied layouts; every event's
     * ts encodes its index, its name and dur follow from it */
    const size_t count = 60000;
    fputs("{\"traceEvents\": [\n", f);
    for (size_t i = 0; i < count; i++) {
        const char *pad = i % 3 == 0 ? " " : "";
        if (i % 7 == 0)
            fprintf(f, "{\"args\":{\"k\":\"%0*d\"},\"dur\":%zu.5,\"name\":\"n%zu\",\"ph\":\"X\",\"pid\":1,\"tid\":%zu,"
                       "\"ts\":%zu}",
                    (int)(i % 97), 0, i % 7, i % 50, i % 5, i * 10);
        else
            fprintf(f, "{\"ph\":%s\"X\", \"cat\": \"c\", \"name\": \"n%zu\", \"pid\": 1, \"tid\": %zu, \"ts\": %zu.000, "
                       "\"dur\": %zu.500, \"args\": {\"k\": \"%0*d\"}}",
                    pad, i % 50, i % 5, i * 10, i % 7, (int)(i % 97), 0);
        fputs(i + 1 < count ? ",\n" : "\n", f);
    }
    fputs("]}\n", f);
    REQUIRE(fclose(f) == 0);
    struct stint_model m;
    REQUIRE(stint_model_init(&m, 0) == 0);
    struct stint_input in;
    REQUIRE(stint_input_open(&in, path) == 0);
    CHECK(in.file_size > (8u << 20));
    struct stint_read_opts o = {0};
    CHECK_EQ_I64(stint_read_chrome(&in, &m, &o), 0);
    stint_input_close(&in);
    stint_model_finish(&m);
    CHECK_EQ_U64(stint_model_nslices(&m), count);
    size_t bad = 0;
    for (size_t i = 0; i < stint_model_nslices(&m); i++) {
        const struct stint_slice *s = stint_model_slice(&m, i);
        size_t k = (size_t)(s->ts_ns / 10000);
        char want[32];
        snprintf(want, sizeof want, "n%zu", k % 50);
        bad += s->ts_ns != (int64_t)k * 10000 || s->dur_ns != (int64_t)(k % 7) * 1000 + 500 ||
               strcmp(stint_model_str(&m, s->name, NULL), want) != 0;
    }
    CHECK_EQ_U64(bad, 0);
    stint_model_free(&m);
    unlink(path);
}

int main(void)
{
    check_scan_num();
    check_keys();
    check_events();
    check_guesses();
    check_memo();
    check_errors();
    check_cache();
    check_file();
    CHECK_DONE();
}
