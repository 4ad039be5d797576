/* SPDX-License-Identifier: MIT */
/*
 * test_otlp.c - stint_write_otlp against the OTLP/JSON protobuf mapping.
 *
 * The output is parsed into a small tree and walked with the OTLP trace
 * schema: every key must be a known field of its message, in lowerCamelCase;
 * 64-bit integers (times, intValue) must be JSON strings of digits; ids must
 * be lowercase hex of the right length and not all zero; enums (kind,
 * status.code) must be integers; each AnyValue holds exactly one value.
 * Then the meaning: parent links point at spans of the same trace, ids are
 * unique and stable across runs, times are anchor + ts (unix) or rebased
 * (relative), resource attributes name the service, host and pid.
 */
#include "check.h"
#include "read/readers.h"
#include "write/write_otlp.h"

#include <ctype.h>
#include <stdint.h>
#include <unistd.h>

/* ---- a minimal JSON tree ------------------------------------------------- */

enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };
struct jv {
    int type;
    const char *s; /* STR: raw text between the quotes; NUM/BOOL: the literal */
    size_t n;
    struct jv **kids; /* ARR items / OBJ values */
    struct jv **keys; /* OBJ keys (J_STR) */
    size_t nkids;
};

static const char *jp;

static void jws(void)
{
    while (*jp == ' ' || *jp == '\n' || *jp == '\t' || *jp == '\r')
        jp++;
}

static struct jv *jparse(void);

/* Every node is also kept here, so jfree_all() releases a whole document
 * (and what a failed parse left behind). */
static struct jv **jarena;
static size_t jarena_n, jarena_cap;

static struct jv *jnew(int type)
{
    struct jv *v = calloc(1, sizeof *v);
    REQUIRE(v);
    v->type = type;
    if (jarena_n == jarena_cap) {
        jarena_cap = jarena_cap ? 2 * jarena_cap : 256;
        jarena = realloc(jarena, jarena_cap * sizeof *jarena);
        REQUIRE(jarena);
    }
    jarena[jarena_n++] = v;
    return v;
}

static void jfree_all(void)
{
    for (size_t i = 0; i < jarena_n; i++) {
        free(jarena[i]->kids);
        free(jarena[i]->keys);
        free(jarena[i]);
    }
    jarena_n = 0;
}

static void jpush(struct jv *v, struct jv *k, struct jv *x)
{
    v->kids = realloc(v->kids, (v->nkids + 1) * sizeof *v->kids);
    v->keys = realloc(v->keys, (v->nkids + 1) * sizeof *v->keys);
    REQUIRE(v->kids && v->keys);
    v->keys[v->nkids] = k;
    v->kids[v->nkids++] = x;
}

static struct jv *jstring(void)
{
    if (*jp != '"')
        return NULL;
    struct jv *v = jnew(J_STR);
    v->s = ++jp;
    while (*jp && *jp != '"') {
        if ((unsigned char)*jp < 0x20)
            return NULL;
        if (*jp == '\\')
            jp++;
        jp++;
    }
    if (*jp != '"')
        return NULL;
    v->n = (size_t)(jp - v->s);
    jp++;
    return v;
}

static struct jv *jparse(void)
{
    jws();
    if (*jp == '{' || *jp == '[') {
        int obj = *jp++ == '{';
        struct jv *v = jnew(obj ? J_OBJ : J_ARR);
        jws();
        if (*jp == (obj ? '}' : ']')) {
            jp++;
            return v;
        }
        for (;;) {
            struct jv *k = NULL;
            if (obj) {
                jws();
                if (!(k = jstring()))
                    return NULL;
                jws();
                if (*jp++ != ':')
                    return NULL;
            }
            struct jv *x = jparse();
            if (!x)
                return NULL;
            jpush(v, k, x);
            jws();
            if (*jp == ',') {
                jp++;
                continue;
            }
            if (*jp++ != (obj ? '}' : ']'))
                return NULL;
            return v;
        }
    }
    if (*jp == '"')
        return jstring();
    struct jv *v = jnew(J_NUM);
    v->s = jp;
    if (!strncmp(jp, "true", 4) || !strncmp(jp, "false", 5) || !strncmp(jp, "null", 4)) {
        v->type = *jp == 'n' ? J_NULL : J_BOOL;
        jp += *jp == 'f' ? 5 : 4;
    } else {
        if (*jp == '-')
            jp++;
        if (!isdigit((unsigned char)*jp))
            return NULL;
        while (isdigit((unsigned char)*jp) || *jp == '.' || *jp == 'e' || *jp == 'E' || *jp == '+' || *jp == '-')
            jp++;
    }
    v->n = (size_t)(jp - v->s);
    return v;
}

static struct jv *jget(const struct jv *o, const char *key)
{
    if (!o || o->type != J_OBJ)
        return NULL;
    for (size_t i = 0; i < o->nkids; i++)
        if (o->keys[i]->n == strlen(key) && !memcmp(o->keys[i]->s, key, o->keys[i]->n))
            return o->kids[i];
    return NULL;
}

static int jis(const struct jv *v, const char *text)
{
    return v && v->n == strlen(text) && !memcmp(v->s, text, v->n);
}

/* ---- the OTLP schema --------------------------------------------------------- */

static int schema_errors;
#define BAD(...)                                                                                   \
    do {                                                                                           \
        fprintf(stderr, "otlp schema: " __VA_ARGS__);                                             \
        fputc('\n', stderr);                                                                       \
        schema_errors++;                                                                           \
    } while (0)

/* Keys of o must be in the comma-separated list and lowerCamelCase. An
 * absent (NULL) message is fine: every field is optional in proto3. */
static void only_keys(const struct jv *o, const char *what, const char *allowed)
{
    if (!o)
        return;
    if (o->type != J_OBJ) {
        BAD("%s is not an object", what);
        return;
    }
    for (size_t i = 0; i < o->nkids; i++) {
        const struct jv *k = o->keys[i];
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)k->n, k->s);
        if (!islower((unsigned char)key[0]) || strchr(key, '_'))
            BAD("%s key '%s' is not lowerCamelCase", what, key);
        char pat[80];
        snprintf(pat, sizeof pat, ",%s,", key);
        char list[512];
        snprintf(list, sizeof list, ",%s,", allowed);
        if (!strstr(list, pat))
            BAD("%s has unknown field '%s'", what, key);
    }
}

static int is_hex_id(const struct jv *v, size_t len)
{
    if (!v || v->type != J_STR || v->n != len)
        return 0;
    int nonzero = 0;
    for (size_t i = 0; i < len; i++) {
        char c = v->s[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return 0;
        nonzero |= c != '0';
    }
    return nonzero;
}

/* int64/uint64/fixed64 in proto3 JSON: a string of decimal digits. */
static int is_int_string(const struct jv *v, int sign_ok)
{
    if (!v || v->type != J_STR || !v->n)
        return 0;
    size_t i = sign_ok && v->s[0] == '-';
    if (i == v->n)
        return 0;
    for (; i < v->n; i++)
        if (!isdigit((unsigned char)v->s[i]))
            return 0;
    return 1;
}

static uint64_t u64_of(const struct jv *v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.*s", (int)v->n, v->s);
    return strtoull(buf, NULL, 10);
}

static void check_any_value(const struct jv *v)
{
    only_keys(v, "AnyValue", "stringValue,boolValue,intValue,doubleValue,arrayValue,kvlistValue,bytesValue");
    if (!v || v->nkids != 1) {
        BAD("AnyValue must hold exactly one value");
        return;
    }
    const struct jv *x = v->kids[0];
    if (jis(v->keys[0], "stringValue") && x->type != J_STR)
        BAD("stringValue is not a string");
    if (jis(v->keys[0], "boolValue") && x->type != J_BOOL)
        BAD("boolValue is not a bool");
    if (jis(v->keys[0], "intValue") && !is_int_string(x, 1))
        BAD("intValue is not an int64 string");
    if (jis(v->keys[0], "doubleValue") && x->type != J_NUM &&
        !(x->type == J_STR && (jis(x, "NaN") || jis(x, "Infinity") || jis(x, "-Infinity"))))
        BAD("doubleValue is neither a number nor NaN/Infinity");
}

static void check_attributes(const struct jv *a, const char *what)
{
    if (!a)
        return;
    if (a->type != J_ARR) {
        BAD("%s.attributes is not an array", what);
        return;
    }
    for (size_t i = 0; i < a->nkids; i++) {
        only_keys(a->kids[i], "KeyValue", "key,value");
        if (!jget(a->kids[i], "key") || jget(a->kids[i], "key")->type != J_STR)
            BAD("KeyValue without a string key");
        check_any_value(jget(a->kids[i], "value"));
    }
}

static void check_span(const struct jv *s)
{
    only_keys(s, "Span",
              "traceId,spanId,traceState,parentSpanId,flags,name,kind,startTimeUnixNano,endTimeUnixNano,"
              "attributes,droppedAttributesCount,events,droppedEventsCount,links,droppedLinksCount,status");
    if (!is_hex_id(jget(s, "traceId"), 32))
        BAD("traceId is not 32 lowercase hex digits (or is all zero)");
    if (!is_hex_id(jget(s, "spanId"), 16))
        BAD("spanId is not 16 lowercase hex digits (or is all zero)");
    if (jget(s, "parentSpanId") && !is_hex_id(jget(s, "parentSpanId"), 16))
        BAD("parentSpanId is not 16 lowercase hex digits");
    if (!jget(s, "name") || jget(s, "name")->type != J_STR)
        BAD("span without a string name");
    const struct jv *k = jget(s, "kind");
    if (!k || k->type != J_NUM || k->n != 1 || k->s[0] < '0' || k->s[0] > '5')
        BAD("kind is not an integer enum 0..5");
    const struct jv *st = jget(s, "startTimeUnixNano"), *en = jget(s, "endTimeUnixNano");
    if (!is_int_string(st, 0) || !is_int_string(en, 0))
        BAD("start/endTimeUnixNano are not uint64 strings");
    else if (u64_of(st) > u64_of(en))
        BAD("span ends before it starts");
    check_attributes(jget(s, "attributes"), "Span");
    const struct jv *status = jget(s, "status");
    if (status) {
        only_keys(status, "Status", "message,code");
        if (jget(status, "code") && jget(status, "code")->type != J_NUM)
            BAD("status.code is not an integer enum");
    }
}

/* Validates the whole document; returns the number of spans. */
static size_t check_document(const struct jv *doc)
{
    only_keys(doc, "ExportTraceServiceRequest", "resourceSpans");
    const struct jv *rs = jget(doc, "resourceSpans");
    if (!rs || rs->type != J_ARR) {
        BAD("resourceSpans is not an array");
        return 0;
    }
    size_t spans = 0;
    for (size_t i = 0; i < rs->nkids; i++) {
        const struct jv *r = rs->kids[i];
        only_keys(r, "ResourceSpans", "resource,scopeSpans,schemaUrl");
        only_keys(jget(r, "resource"), "Resource", "attributes,droppedAttributesCount");
        check_attributes(jget(jget(r, "resource"), "attributes"), "Resource");
        const struct jv *ss = jget(r, "scopeSpans");
        if (!ss || ss->type != J_ARR) {
            BAD("scopeSpans is not an array");
            continue;
        }
        for (size_t j = 0; j < ss->nkids; j++) {
            only_keys(ss->kids[j], "ScopeSpans", "scope,spans,schemaUrl");
            only_keys(jget(ss->kids[j], "scope"), "InstrumentationScope",
                      "name,version,attributes,droppedAttributesCount");
            const struct jv *sp = jget(ss->kids[j], "spans");
            if (!sp || sp->type != J_ARR) {
                BAD("spans is not an array");
                continue;
            }
            for (size_t k = 0; k < sp->nkids; k++)
                check_span(sp->kids[k]);
            spans += sp->nkids;
        }
    }
    return spans;
}

/* ---- helpers over the parsed document ------------------------------------------- */

struct flat {
    const struct jv *span;
    const struct jv *resource;
};

static size_t flatten(const struct jv *doc, struct flat *out, size_t cap)
{
    size_t n = 0;
    const struct jv *rs = jget(doc, "resourceSpans");
    for (size_t i = 0; rs && i < rs->nkids; i++) {
        const struct jv *ss = jget(rs->kids[i], "scopeSpans");
        for (size_t j = 0; ss && j < ss->nkids; j++) {
            const struct jv *sp = jget(ss->kids[j], "spans");
            for (size_t k = 0; sp && k < sp->nkids && n < cap; k++)
                out[n++] = (struct flat){sp->kids[k], jget(rs->kids[i], "resource")};
        }
    }
    return n;
}

static const struct flat *by_name(const struct flat *f, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (jis(jget(f[i].span, "name"), name))
            return &f[i];
    return NULL;
}

/* The AnyValue of attribute key in an attributes array, or NULL. */
static const struct jv *attr(const struct jv *owner, const char *key)
{
    const struct jv *a = jget(owner, "attributes");
    for (size_t i = 0; a && i < a->nkids; i++)
        if (jis(jget(a->kids[i], "key"), key))
            return jget(a->kids[i], "value");
    return NULL;
}

static int attr_is(const struct jv *owner, const char *key, const char *kind, const char *text)
{
    const struct jv *v = attr(owner, key);
    return v && jis(jget(v, kind) ? v->keys[0] : NULL, kind) && jis(jget(v, kind), text);
}

static char *render(const struct stint_model *m)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    REQUIRE(f);
    char err[128] = "";
    int rc = stint_write_otlp(m, f, err, sizeof err);
    fclose(f);
    CHECK(rc == 0);
    CHECK(len > 0 && buf[len - 1] == '\n');
    if (getenv("STINT_TEST_DUMP")) /* for a look by eye */
        fputs(buf, stdout);
    return buf;
}

static struct jv *parse_doc(const char *text)
{
    jp = text;
    struct jv *doc = jparse();
    REQUIRE(doc);
    jws();
    CHECK(*jp == '\0');
    return doc;
}

/* ---- cases ---------------------------------------------------------------------------- */

static void add_meta(struct stint_model *m, const char *key, int kind, int64_t ival, const char *sval)
{
    struct stint_arg *a = stint_bigarray_push(&m->metadata);
    REQUIRE(a);
    a->key = stint_model_intern(m, key, strlen(key));
    a->kind = (uint32_t)kind;
    a->ival = ival;
    a->sval = sval ? stint_model_intern(m, sval, strlen(sval)) : 0;
}

static uint32_t add_x(struct stint_model *m, uint32_t track, const char *name, int64_t ts, int64_t dur)
{
    struct stint_slice s = {0};
    s.ts_ns = ts;
    s.dur_ns = dur;
    s.track = track;
    s.name = stint_model_intern(m, name, strlen(name));
    s.flags = STINT_SLICE_COMPLETE;
    return stint_model_add_slice(m, &s);
}

static void arg(struct stint_model *m, uint32_t slice, const char *key, int kind, int64_t ival, const char *sval)
{
    struct stint_arg a = {stint_model_intern(m, key, strlen(key)), (uint32_t)kind, ival,
                          sval ? stint_model_intern(m, sval, strlen(sval)) : 0};
    stint_model_add_arg(m, slice, &a);
}

static void build_anchored(struct stint_model *m)
{
    REQUIRE(stint_model_init(m, STINT_MODEL_KEEP_ARGS) == 0);
    add_meta(m, "clock_realtime_ns", STINT_ARG_INT, 1700000000000000000LL, NULL);
    add_meta(m, "hostname", STINT_ARG_STRING, 0, "box-1");
    add_meta(m, "entrypoint", STINT_ARG_STRING, 0, "model::forward");
    uint32_t t1 = stint_model_lane_at(m, stint_model_lane(m, 42, 7, STINT_CLOCK_HOST))->track;
    uint32_t t2 = stint_model_lane_at(m, stint_model_lane(m, 42, 8, STINT_CLOCK_HOST))->track;
    uint32_t t3 = stint_model_lane_at(m, stint_model_lane(m, 99, 99, STINT_CLOCK_HOST))->track;
    uint32_t root = add_x(m, t1, "step", 1000, 9000);
    arg(m, root, "args.n", STINT_ARG_INT, -5, NULL);
    arg(m, root, "args.big", STINT_ARG_UINT, (int64_t)UINT64_C(18446744073709551615), NULL);
    arg(m, root, "args.ratio", STINT_ARG_REAL, 0, "0.25");
    arg(m, root, "args.inf", STINT_ARG_REAL, 0, "inf");
    arg(m, root, "args.ok", STINT_ARG_BOOL, 1, NULL);
    arg(m, root, "args.who", STINT_ARG_STRING, 0, "a \"quoted\"\nname");
    arg(m, root, "args.obj", STINT_ARG_JSON, 0, "{\"a\":1}");
    add_x(m, t1, "step.fwd", 2000, 3000);
    add_x(m, t1, "step.bwd", 5000, 4000);
    add_x(m, t2, "other.thread", 1500, 100);
    add_x(m, t3, "second.process", 0, 10);
    stint_model_finish(m);
}

static void test_schema_and_meaning(void)
{
    struct stint_model m;
    build_anchored(&m);
    char *text = render(&m);
    struct jv *doc = parse_doc(text);
    schema_errors = 0;
    CHECK_EQ_I64(check_document(doc), 5);
    CHECK_EQ_I64(schema_errors, 0);

    struct flat f[16];
    size_t n = flatten(doc, f, 16);
    REQUIRE(n == 5);
    const struct flat *root = by_name(f, n, "step"), *fwd = by_name(f, n, "step.fwd"),
                      *bwd = by_name(f, n, "step.bwd"), *oth = by_name(f, n, "other.thread"),
                      *sec = by_name(f, n, "second.process");
    REQUIRE(root && fwd && bwd && oth && sec);

    /* Times: unix ns = clock_realtime_ns + ts. */
    CHECK(jis(jget(root->span, "startTimeUnixNano"), "1700000000000001000"));
    CHECK(jis(jget(root->span, "endTimeUnixNano"), "1700000000000010000"));
    CHECK(jis(jget(fwd->span, "startTimeUnixNano"), "1700000000000002000"));

    /* Parent links and traces: children point at the root's spanId and share
     * its traceId; a root has no parentSpanId; other roots get other traces. */
    CHECK(!jget(root->span, "parentSpanId"));
    CHECK(jis(jget(fwd->span, "parentSpanId"), "") == 0);
    const struct jv *rid = jget(root->span, "spanId");
    CHECK(jget(fwd->span, "parentSpanId") && jget(fwd->span, "parentSpanId")->n == rid->n &&
          !memcmp(jget(fwd->span, "parentSpanId")->s, rid->s, rid->n));
    CHECK(jget(bwd->span, "parentSpanId") && !memcmp(jget(bwd->span, "parentSpanId")->s, rid->s, rid->n));
    CHECK(!memcmp(jget(fwd->span, "traceId")->s, jget(root->span, "traceId")->s, 32));
    CHECK(memcmp(jget(oth->span, "traceId")->s, jget(root->span, "traceId")->s, 32) != 0);
    CHECK(!jget(oth->span, "parentSpanId"));
    /* span ids unique */
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            CHECK(memcmp(jget(f[i].span, "spanId")->s, jget(f[j].span, "spanId")->s, 16) != 0);

    /* Attributes keep their types; 64-bit ints are strings. */
    CHECK(attr_is(root->span, "n", "intValue", "-5"));
    CHECK(attr_is(root->span, "big", "stringValue", "18446744073709551615"));
    CHECK(attr_is(root->span, "ratio", "doubleValue", "0.25"));
    CHECK(attr_is(root->span, "inf", "doubleValue", "Infinity"));
    CHECK(attr_is(root->span, "ok", "boolValue", "true"));
    CHECK(attr_is(root->span, "who", "stringValue", "a \\\"quoted\\\"\\nname"));
    CHECK(attr_is(root->span, "obj", "stringValue", "{\\\"a\\\":1}"));
    CHECK(attr_is(root->span, "thread.id", "intValue", "7"));
    CHECK(attr_is(oth->span, "thread.id", "intValue", "8"));

    /* Resources: one per process, with service, host and pid. */
    CHECK(root->resource == oth->resource);
    CHECK(root->resource != sec->resource);
    CHECK(attr_is(root->resource, "service.name", "stringValue", "model::forward"));
    CHECK(attr_is(root->resource, "host.name", "stringValue", "box-1"));
    CHECK(attr_is(root->resource, "process.pid", "intValue", "42"));
    CHECK(attr_is(sec->resource, "process.pid", "intValue", "99"));
    CHECK(attr_is(root->resource, "stint.time_base", "stringValue", "unix"));

    /* Stable: the same model gives the same bytes; a rebuilt model too. */
    char *again = render(&m);
    CHECK_STR(text, again);
    struct stint_model m2;
    build_anchored(&m2);
    char *third = render(&m2);
    CHECK_STR(text, third);
    free(again);
    free(third);
    stint_model_free(&m2);
    stint_model_free(&m);
    free(text);
    jfree_all();
}

static void test_relative_and_unfinished(void)
{
    struct stint_model m;
    REQUIRE(stint_model_init(&m, STINT_MODEL_KEEP_ARGS) == 0);
    uint32_t lane = stint_model_lane(&m, 5, 5, STINT_CLOCK_HOST);
    uint32_t t = stint_model_lane_at(&m, lane)->track;
    add_x(&m, t, "early", -300, 100);
    add_x(&m, t, "late", 700, 50);
    struct stint_slice b = {0};
    b.ts_ns = 900;
    b.name = stint_model_intern(&m, "open", 4);
    stint_model_begin(&m, lane, &b); /* never ended */
    uint32_t dl = stint_model_lane(&m, 5, 1, STINT_CLOCK_DEVICE);
    add_x(&m, stint_model_lane_at(&m, dl)->track, "dev.phase", 40, 20);
    stint_model_finish(&m);
    char *text = render(&m);
    struct jv *doc = parse_doc(text);
    schema_errors = 0;
    CHECK_EQ_I64(check_document(doc), 4);
    CHECK_EQ_I64(schema_errors, 0);
    struct flat f[8];
    size_t n = flatten(doc, f, 8);
    const struct flat *early = by_name(f, n, "early"), *late = by_name(f, n, "late"),
                      *open = by_name(f, n, "open"), *dev = by_name(f, n, "dev.phase");
    REQUIRE(early && late && open && dev);
    /* No anchor: rebased to the earliest host start, never negative. */
    CHECK(jis(jget(early->span, "startTimeUnixNano"), "0"));
    CHECK(jis(jget(late->span, "startTimeUnixNano"), "1000"));
    CHECK(jis(jget(late->span, "endTimeUnixNano"), "1050"));
    CHECK(attr_is(early->resource, "stint.time_base", "stringValue", "relative"));
    CHECK(attr_is(early->resource, "service.name", "stringValue", "stint"));
    CHECK(!attr(early->resource, "host.name"));
    CHECK(attr_is(open->span, "stint.unfinished", "boolValue", "true"));
    CHECK(jis(jget(open->span, "endTimeUnixNano"), "1200"));
    /* Device clock: its own time, flagged. */
    CHECK(attr_is(dev->span, "stint.clock", "stringValue", "device"));
    CHECK(jis(jget(dev->span, "startTimeUnixNano"), "40"));
    stint_model_free(&m);
    free(text);
    jfree_all();
}

/* Through the reader: a stint Chrome file carries origin_realtime_ns. */
static void test_from_chrome_file(void)
{
    char path[] = "/tmp/test_otlp_XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    const char *json = "{\"traceEvents\":["
                       "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":3,\"tid\":3,\"args\":{\"name\":\"trainer\"}},"
                       "{\"ph\":\"X\",\"name\":\"outer\",\"pid\":3,\"tid\":4,\"ts\":\"1.000\",\"dur\":\"5.000\",\"args\":{\"k\":\"v\",\"i\":3}},"
                       "{\"ph\":\"X\",\"name\":\"inner\",\"pid\":3,\"tid\":4,\"ts\":2.5,\"dur\":1}],"
                       "\"metadata\":{\"schema\":\"stint/chrome/1\",\"origin_realtime_ns\":1600000000000000000,"
                       "\"hostname\":\"h2\"}}";
    REQUIRE(write(fd, json, strlen(json)) == (ssize_t)strlen(json));
    close(fd);
    struct stint_model m;
    REQUIRE(stint_model_init(&m, STINT_MODEL_KEEP_ARGS) == 0);
    struct stint_read_opts o = {.quiet = 1};
    CHECK_EQ_I64(stint_read_trace(path, &m, &o), 0);
    unlink(path);
    char *text = render(&m);
    struct jv *doc = parse_doc(text);
    schema_errors = 0;
    CHECK_EQ_I64(check_document(doc), 2);
    CHECK_EQ_I64(schema_errors, 0);
    struct flat f[4];
    size_t n = flatten(doc, f, 4);
    const struct flat *outer = by_name(f, n, "outer"), *inner = by_name(f, n, "inner");
    REQUIRE(outer && inner);
    CHECK(jis(jget(outer->span, "startTimeUnixNano"), "1600000000000001000"));
    CHECK(jis(jget(inner->span, "endTimeUnixNano"), "1600000000000003500"));
    CHECK(!memcmp(jget(inner->span, "parentSpanId")->s, jget(outer->span, "spanId")->s, 16));
    CHECK(attr_is(outer->span, "k", "stringValue", "v"));
    CHECK(attr_is(outer->span, "i", "intValue", "3"));
    CHECK(attr_is(outer->resource, "service.name", "stringValue", "trainer"));
    CHECK(attr_is(outer->resource, "host.name", "stringValue", "h2"));
    stint_model_free(&m);
    free(text);
    jfree_all();
}

/* Timestamps at the ends of the kept range (+-(2^62 - 1) ns) plus a realtime
 * anchor near INT64_MAX saturate instead of overflowing (UBSan runs this
 * too), and the document stays valid; a slice past the range is dropped by
 * the model and counted. */
static void test_extreme_times(void)
{
    for (int anchored = 0; anchored < 2; anchored++) {
        struct stint_model m;
        REQUIRE(stint_model_init(&m, STINT_MODEL_KEEP_ARGS) == 0);
        if (anchored)
            add_meta(&m, "meta.clock_realtime_ns", STINT_ARG_INT, INT64_MAX - 1000, NULL);
        uint32_t t = stint_model_lane_at(&m, stint_model_lane(&m, 1, 1, STINT_CLOCK_HOST))->track;
        const int64_t lim = ((int64_t)1 << 62) - 1; /* STINT_TS_LIMIT */
        add_x(&m, t, "low", -lim, 10);
        add_x(&m, t, "high", lim - 5, 5);
        add_x(&m, t, "past", INT64_MAX - 5, 5);
        stint_model_finish(&m);
        CHECK_EQ_U64(m.dropped, 1);
        char *text = render(&m);
        struct jv *doc = parse_doc(text);
        schema_errors = 0;
        CHECK_EQ_I64(check_document(doc), 2);
        CHECK_EQ_I64(schema_errors, 0);
        struct flat f[2];
        size_t n = flatten(doc, f, 2);
        const struct flat *high = by_name(f, n, "high");
        REQUIRE(high);
        /* rebased by -min ts (lim) the end is 2^63 - 2; the anchor near INT64_MAX saturates */
        CHECK(jis(jget(high->span, "endTimeUnixNano"), anchored ? "9223372036854775807" : "9223372036854775806"));
        if (anchored) /* the "meta." prefix of the JSONL reader is understood */
            CHECK(attr_is(high->resource, "stint.time_base", "stringValue", "unix"));
        stint_model_free(&m);
        free(text);
        jfree_all();
    }
}

static void test_write_error(void)
{
    struct stint_model m;
    build_anchored(&m);
    FILE *full = fopen("/dev/full", "w");
    if (full) {
        char err[128] = "";
        CHECK(stint_write_otlp(&m, full, err, sizeof err) == -1);
        CHECK(strstr(err, "otlp: write failed") != NULL);
        fclose(full);
    }
    stint_model_free(&m);
}

/* The checker itself must reject what the mapping forbids. */
static void test_checker_rejects(void)
{
    const char *bad[] = {
        "{\"resourceSpans\":[{\"resource\":{},\"scopeSpans\":[{\"spans\":[{\"trace_id\":\"x\"}]}]}]}",
        "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"0123456789abcdef0123456789abcdef\","
        "\"spanId\":\"0123456789abcdef\",\"name\":\"a\",\"kind\":\"SPAN_KIND_INTERNAL\","
        "\"startTimeUnixNano\":\"1\",\"endTimeUnixNano\":\"2\"}]}]}]}",
        "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"0123456789abcdef0123456789abcdef\","
        "\"spanId\":\"0123456789abcdef\",\"name\":\"a\",\"kind\":1,"
        "\"startTimeUnixNano\":1,\"endTimeUnixNano\":\"2\"}]}]}]}",
        "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"00000000000000000000000000000000\","
        "\"spanId\":\"0123456789ABCDEF\",\"name\":\"a\",\"kind\":1,"
        "\"startTimeUnixNano\":\"1\",\"endTimeUnixNano\":\"2\"}]}]}]}",
        "{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":\"k\",\"value\":{\"intValue\":5}}]},"
        "\"scopeSpans\":[]}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        schema_errors = 0;
        fprintf(stderr, "(expected rejection %zu follows)\n", i);
        check_document(parse_doc(bad[i]));
        CHECK(schema_errors > 0);
        jfree_all();
    }
    free(jarena);
}

int main(void)
{
    test_schema_and_meaning();
    test_relative_and_unfinished();
    test_from_chrome_file();
    test_extreme_times();
    test_write_error();
    test_checker_rejects();
    CHECK_DONE();
}
