/* SPDX-License-Identifier: MIT */
/*
 * read_jsonl.c - JSONL sessions: stint/session/1 (docs/formats/session-jsonl.md)
 * and the reference trace format candle-graph/trace/6, into the model.
 *
 * One JSON object per line, dispatched on "kind". The first record must be
 * the one "meta" record with a known schema. span_start opens a span on lane
 * (meta pid, record tid; 0 when absent), span_end closes it by id; the span
 * tree comes from parent ids (STINT_SLICE_EXPLICIT_PARENT), so a root on one
 * thread may have children on others. counter records become counter series,
 * and device_memory checkpoints the series "device_memory <device>
 * used_bytes|free_bytes|reserved_bytes" (each field present); both belong to
 * the meta record's pid. dropped records add to the model's dropped count.
 * op/tensor/memory/gradient/fork/edge records are validated as JSON and counted
 * as events and per kind in m->unmodelled, but not modelled here (the memory
 * analysis reads them itself).
 *
 * Errors (exit 1, what was read is kept, partial): meta not first, duplicate
 * meta, unknown schema, duplicate span id, span_end for an unknown span, a
 * second span_end, invalid JSON. A last line without '\n' (a writer killed
 * mid-line) is dropped and counted as a torn record.
 */
#include "read/readers.h"

#include "model/filters.h"
#include "read/json.h"
#include "read/jsonl_scan.h"
#include "read/sizes.h"
#include "base/tsparse.h"
#include "base/xalloc.h"

#include "stint/stint.h"

#include <stdlib.h>
#include <string.h>

#define FIELDS_START 32 /* fields of a record; the array grows for records with more keys */

struct field {
    const char *k;
    size_t kn;
    const char *v; /* value text: string body, number text, or raw JSON */
    size_t vn;
    int is_str, esc;
};

struct jreader {
    struct stint_model *m;
    const char *path;
    uint64_t line;
    int have_meta;
    int64_t pid;
    uint32_t *span_of;   /* string id of a span id -> slice index + 1 (0 = unknown) */
    uint8_t *ended;      /* by string id */
    size_t span_cap;
    char *tmp;
    size_t tmp_cap;
    struct field *f; /* the current record's keys, all of them */
    size_t fcap;
    uint64_t records; /* records read, blank lines not counted */
    uint32_t id_none, id_meta, id_start, id_end; /* sizes mode: the string ids of "", "meta",
                                                  * "span_start" and "span_end" */
    struct open_ids *open; /* sizes mode: the spans begun and not yet ended */
};

/* ---- sizes mode: the open spans' (cat, name), by id ---------------------------------
 * A span_end names its span by id only; sizes files it under the span's
 * (span_kind, name), looked up here. Only open spans are held (an end
 * removes its span), so memory grows with the spans open at once, not with
 * the session, and no id is interned. */
struct open_id {
    char *id;   /* the id as decoded (owned); NULL: empty, TOMB: removed */
    size_t len;
    uint64_t hash;
    uint32_t cat, name;
};
struct open_ids {
    struct open_id *e;
    size_t cap, used, tombs; /* cap a power of two (or 0) */
};
static char tomb_mark;
#define TOMB (&tomb_mark)

/* The slot of id (its entry, or the empty slot where it would go). */
static struct open_id *open_slot(struct open_ids *t, const char *id, size_t n, uint64_t h)
{
    struct open_id *free_slot = NULL;
    for (size_t i = h & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        struct open_id *x = &t->e[i];
        if (!x->id)
            return free_slot ? free_slot : x;
        if (x->id == TOMB) {
            if (!free_slot)
                free_slot = x;
        } else if (x->hash == h && x->len == n && !memcmp(x->id, id, n))
            return x;
    }
}

/* Makes room for one more entry: doubles (or rebuilds without tombstones)
 * at half load. */
static void open_room(struct open_ids *t)
{
    if (t->cap && (t->used + t->tombs + 1) * 2 <= t->cap)
        return;
    size_t ncap = t->cap ? t->cap : 64;
    while ((t->used + 1) * 4 > ncap) /* (a quarter full at most after a rebuild) */
        ncap *= 2;
    struct open_ids n = {stint_xcalloc(ncap, sizeof *n.e), ncap, 0, 0};
    for (size_t i = 0; i < t->cap; i++)
        if (t->e[i].id && t->e[i].id != TOMB) {
            *open_slot(&n, t->e[i].id, t->e[i].len, t->e[i].hash) = t->e[i];
            n.used++;
        }
    free(t->e);
    *t = n;
}

/* Records that span id (decoded) is open with (cat, name), replacing an
 * open span of the same id. */
static void open_put(struct open_ids *t, const char *id, size_t n, uint32_t cat, uint32_t name)
{
    open_room(t);
    uint64_t h = stint_fnv1a64(id, n);
    struct open_id *x = open_slot(t, id, n, h);
    if (!x->id || x->id == TOMB) {
        char *c = stint_xmalloc(n ? n : 1);
        memcpy(c, id, n);
        t->tombs -= x->id == TOMB;
        *x = (struct open_id){c, n, h, 0, 0};
        t->used++;
    }
    x->cat = cat, x->name = name;
}

/* Takes span id out of the open spans: 1 and its (cat, name), or 0 when it
 * is not open. */
static int open_take(struct open_ids *t, const char *id, size_t n, uint32_t *cat, uint32_t *name)
{
    if (!t->cap)
        return 0;
    struct open_id *x = open_slot(t, id, n, stint_fnv1a64(id, n));
    if (!x->id || x->id == TOMB)
        return 0;
    *cat = x->cat, *name = x->name;
    free(x->id);
    x->id = TOMB;
    t->used--, t->tombs++;
    return 1;
}

static void open_free(struct open_ids *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->cap; i++)
        if (t->e[i].id != TOMB)
            free(t->e[i].id);
    free(t->e);
    free(t);
}

/* Parses the record a[0..b) into r->f[0..*nf) (every key, the array grown as
 * needed; out of memory ends the process, base/xalloc.h). */
static int parse_line(struct jreader *r, const char *a, const char *b, int *nf, const char **err)
{
    struct stint_json j = {.p = a, .end = b, .at_eof = 1};
    *nf = 0;
    if (stint_json_ws(&j) != '{') {
        *err = "expected a JSON object";
        return -1;
    }
    j.p++;
    int first = 1;
    for (;;) {
        int c = stint_json_ws(&j);
        if (c == '}') {
            j.p++;
            break;
        }
        if (!first) {
            if (c != ',') {
                *err = "expected ',' or '}' in the record";
                return -1;
            }
            j.p++;
            c = stint_json_ws(&j);
        }
        first = 0;
        if (c != '"') {
            *err = "expected a string key";
            return -1;
        }
        struct field tmp;
        const char *k;
        size_t kn;
        int kesc;
        if (stint_json_string(&j, &k, &kn, &kesc) != STINT_JSON_OK) {
            *err = j.err;
            return -1;
        }
        if (kesc) /* "\u0069d" is "id": decoded where it lies (the input's own window, which
                   * decoding never grows; the line is not read again) */
            kn = stint_json_unescape(k, kn, (char *)k);
        if (stint_json_ws(&j) != ':') {
            *err = "expected ':' after a key";
            return -1;
        }
        j.p++;
        c = stint_json_ws(&j);
        memset(&tmp, 0, sizeof tmp);
        tmp.k = k;
        tmp.kn = kn;
        if (c == '"') {
            if (stint_json_string(&j, &tmp.v, &tmp.vn, &tmp.esc) != STINT_JSON_OK) {
                *err = j.err;
                return -1;
            }
            tmp.is_str = 1;
        } else {
            const char *v0 = j.p;
            if (stint_json_skip(&j) != STINT_JSON_OK) {
                *err = j.err;
                return -1;
            }
            tmp.v = v0;
            tmp.vn = (size_t)(j.p - v0);
        }
        r->f = stint_xgrow(r->f, &r->fcap, (size_t)*nf + 1, sizeof *r->f, FIELDS_START);
        r->f[(*nf)++] = tmp;
    }
    if (stint_json_ws(&j) != 0 || j.p < j.end) {
        *err = "unexpected data after the record's '}'";
        return -1;
    }
    (void)r;
    return 0;
}

/* The field named key, or NULL. */
static const struct field *get(const struct field *f, int nf, const char *key)
{
    size_t n = strlen(key);
    for (int i = 0; i < nf; i++)
        if (f[i].kn == n && !memcmp(f[i].k, key, n))
            return &f[i];
    return NULL;
}

/* A string field's text, decoded (in r->tmp when it has escapes, valid until
 * the next call); *n its length. fd must be a string. */
static const char *field_str(struct jreader *r, const struct field *fd, size_t *n)
{
    if (!fd->esc) {
        *n = fd->vn;
        return fd->v;
    }
    if (fd->vn + 1 > r->tmp_cap) {
        r->tmp_cap = fd->vn + 64;
        r->tmp = stint_xreallocarray(r->tmp, r->tmp_cap, 1);
    }
    *n = stint_json_unescape(fd->v, fd->vn, r->tmp);
    return r->tmp;
}

static uint32_t intern_field(struct jreader *r, const struct field *fd)
{
    if (!fd || !fd->is_str)
        return 0;
    size_t n;
    const char *t = field_str(r, fd, &n);
    return stint_model_intern(r->m, t, n);
}

static int field_i64(const struct field *fd, int64_t *out)
{
    return fd && !fd->is_str && stint_parse_i64(fd->v, fd->vn, out) == 0 ? 0 : -1;
}

/* A number field's value as a double: 0, or -1 when fd is not a JSON number
 * (a string, true, an object, ...). Any length: the line was validated, so the
 * number's text is followed by a delimiter, where strtod stops (the CLI runs
 * in the C locale). */
static int field_double(const struct field *fd, double *out)
{
    if (fd->is_str || !fd->vn || !(fd->v[0] == '-' || (fd->v[0] >= '0' && fd->v[0] <= '9')))
        return -1;
    char *end;
    double d = strtod(fd->v, &end);
    if (end != fd->v + fd->vn)
        return -1;
    *out = d;
    return 0;
}

/* sizes mode (STINT_MODEL_SIZES, sizes.h): measures the record [a, b) (from
 * its '{' to its '}') as written instead of modelling it. Its phase is its
 * kind, its (cat, name) its span_kind and its name (else op_name; "" when it
 * has neither), but for a span_end with none of the three: its span's, when
 * that span is open (found by id, struct open_ids), its event keys its
 * members, each from its key's '"' to its value's end. The filters read it
 * as written: --pid the session's (the meta record's pid; 0 before it),
 * --tid its tid (none fails), --cat and --name as above, --time-range its
 * start_ns or timestamp_ns as a point (neither fails). No record is checked
 * for meaning (meta first, span ids): only for JSON. */
static void size_record(struct jreader *r, const char *a, const char *b, const struct field *f, int nf,
                        const struct stint_filter *flt)
{
    struct stint_model *m = r->m;
    struct stint_sizes *z = m->sizes;
    uint32_t kind = intern_field(r, get(f, nf, "kind")), none = r->id_none;
    if (kind == r->id_meta)
        (void)field_i64(get(f, nf, "pid"), &r->pid);
    const struct field *nm = get(f, nf, "name"), *sk = get(f, nf, "span_kind");
    if (!nm || !nm->is_str)
        nm = get(f, nf, "op_name");
    uint32_t name = nm && nm->is_str ? intern_field(r, nm) : none, cat = sk && sk->is_str ? intern_field(r, sk) : none;
    const struct field *idf = get(f, nf, "id");
    if ((kind == r->id_start || kind == r->id_end) && idf && idf->is_str) {
        size_t n;
        const char *id = field_str(r, idf, &n);
        uint32_t c0, n0;
        if (kind == r->id_start)
            open_put(r->open, id, n, cat, name);
        else if (open_take(r->open, id, n, &c0, &n0) && !(nm && nm->is_str) && !(sk && sk->is_str))
            cat = c0, name = n0; /* a span_end that names nothing of its own: its span's */
    }
    if (flt) {
        const struct field *tf = get(f, nf, "start_ns");
        struct stint_filter_rec w = {.pid = r->pid, .cat = stint_model_str(m, cat, NULL),
                                     .name = stint_model_str(m, name, NULL)};
        w.has_tid = field_i64(get(f, nf, "tid"), &w.tid) == 0;
        w.has_ts = field_i64(tf ? tf : get(f, nf, "timestamp_ns"), &w.ts) == 0; /* a point: dur 0 */
        if (!stint_filter_rec(flt, &w)) {
            z->filtered_events++;
            z->filtered_bytes += (uint64_t)(b - a);
            return;
        }
    }
    stint_sizes_event(z, kind, cat, name, (uint64_t)(b - a), 0);
    for (int i = 0; i < nf; i++) {
        const char *end = f[i].v + f[i].vn + (f[i].is_str ? 1 : 0);
        stint_sizes_event_key(z, stint_model_intern(m, f[i].k, f[i].kn), (uint64_t)(end - (f[i].k - 1)));
    }
}

/* The series "device_memory <device> <key>" (device: the field's string,
 * unescaped and cut to 200 bytes; "" when absent or not a string). */
static uint32_t device_series(struct jreader *r, const struct field *dev, const char *key)
{
    char name[256];
    size_t n = 0;
    memcpy(name, "device_memory ", 14);
    n = 14;
    if (dev && dev->is_str) {
        uint32_t id = intern_field(r, dev);
        size_t len;
        const char *d = stint_model_str(r->m, id, &len);
        if (len > 200)
            len = 200;
        memcpy(name + n, d, len);
        n += len;
    }
    name[n++] = ' ';
    size_t kl = strlen(key);
    memcpy(name + n, key, kl);
    n += kl;
    return stint_model_intern(r->m, name, n);
}

/* Makes the span maps hold string id id (grown, new entries 0). */
static void ensure_span_map(struct jreader *r, uint32_t id)
{
    if (id < r->span_cap)
        return;
    size_t n = r->span_cap ? r->span_cap : 1024;
    while (n <= id)
        n *= 2;
    uint32_t *a = stint_xreallocarray(r->span_of, n, sizeof *a);
    r->span_of = a;
    uint8_t *e = stint_xreallocarray(r->ended, n, 1);
    memset(a + r->span_cap, 0, (n - r->span_cap) * sizeof *a);
    memset(e + r->span_cap, 0, n - r->span_cap);
    r->span_of = a;
    r->ended = e;
    r->span_cap = n;
}

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        stint_model_fail(m, __VA_ARGS__);                                                          \
        return -1;                                                                                 \
    } while (0)

/* meta: the one first record; its schema must be known, its keys become
 * trace metadata ("meta.<key>"). */
static int rec_meta(struct jreader *r, const struct field *f, int nf)
{
    struct stint_model *m = r->m;
    if (r->have_meta)
        FAIL("%s: line %llu: a second meta record (expected exactly one, the first record)", r->path,
             (unsigned long long)r->line);
    if (r->records != 1)
        FAIL("%s: line %llu: meta is not the first record (expected it before every other record)", r->path,
             (unsigned long long)r->line);
    const struct field *sc = get(f, nf, "schema");
    char sb[64]; /* the schema decoded ("stint\/session\/1" is one) */
    size_t sn = sc && sc->is_str && sc->esc && sc->vn <= sizeof sb ? stint_json_unescape(sc->v, sc->vn, sb) : 0;
    int known = sc && sc->is_str &&
                (sc->esc ? sn && stint_jl_schema_known(sb, sn) : stint_jl_schema_known(sc->v, sc->vn));
    if (!known)
        FAIL("%s: line %llu: unknown schema %.*s (expected \"stint/session/1\" or \"candle-graph/trace/6\")", r->path,
             (unsigned long long)r->line,
             sc ? (int)(sc->vn > 64 ? 64 : sc->vn) : 6, sc ? sc->v : "(none)");
    r->have_meta = 1;
    int64_t pid;
    if (field_i64(get(f, nf, "pid"), &pid) == 0)
        r->pid = pid;
    /* the meta keys become trace metadata */
    for (int i = 0; i < nf; i++) {
        if (f[i].kn == 4 && !memcmp(f[i].k, "kind", 4))
            continue;
        struct stint_arg *a = stint_bigarray_push(&m->metadata);
        if (!a)
            continue;
        char key[160];
        int kn = snprintf(key, sizeof key, "meta.%.*s", (int)(f[i].kn > 140 ? 140 : f[i].kn), f[i].k);
        a->key = stint_model_intern(m, key, (size_t)kn);
        int64_t v;
        if (f[i].is_str) {
            a->kind = STINT_ARG_STRING;
            a->sval = intern_field(r, &f[i]);
        } else if (stint_parse_i64(f[i].v, f[i].vn, &v) == 0) {
            a->kind = STINT_ARG_INT;
            a->ival = v;
        } else {
            a->kind = STINT_ARG_JSON;
            a->sval = stint_model_intern(m, f[i].v, f[i].vn);
        }
    }
    return 0;
}

/* A span record's (kind) string "id" field, interned in *sid (the span maps
 * grown to hold it), with its integer field key in *v. Returns 0, or -1
 * after stint_model_fail when either is missing or of another type. */
static int span_id_and(struct jreader *r, const struct field *f, int nf, const char *kind, const char *key,
                       uint32_t *sid, int64_t *v)
{
    const struct field *id = get(f, nf, "id");
    if (!id || !id->is_str || field_i64(get(f, nf, key), v) != 0) {
        stint_model_fail(r->m, "%s: line %llu: %s needs a string \"id\" and an integer \"%s\"", r->path,
                         (unsigned long long)r->line, kind, key);
        return -1;
    }
    *sid = intern_field(r, id);
    ensure_span_map(r, *sid);
    return 0;
}

/* span_start (span sid, start_ns start): a slice opened on the lane (meta
 * pid, tid), under its parent span when it names one. */
static int span_start(struct jreader *r, const struct field *f, int nf, uint32_t sid, int64_t start)
{
    struct stint_model *m = r->m;
    if (!stint_ts_in_range(start))
        FAIL("%s: line %llu: start_ns %lld lies outside the kept time range (expected |start_ns| < 2^62)",
             r->path, (unsigned long long)r->line, (long long)start);
    if (r->span_of[sid])
        FAIL("%s: line %llu: duplicate span id \"%s\" (expected ids to be unique)", r->path,
             (unsigned long long)r->line, stint_model_str(m, sid, NULL));
    int64_t tid = 0;
    field_i64(get(f, nf, "tid"), &tid);
    uint32_t lane = stint_model_lane(m, r->pid, tid, STINT_CLOCK_HOST);
    struct stint_slice s = {.ts_ns = start, .dur_ns = -1,
                            .flags = STINT_SLICE_BEGIN_END | STINT_SLICE_EXPLICIT_PARENT, .parent = STINT_NO_ID};
    s.track = stint_model_lane_at(m, lane)->track;
    s.name = intern_field(r, get(f, nf, "name"));
    const struct field *kindf = get(f, nf, "span_kind");
    s.cat = kindf ? intern_field(r, kindf) : 0;
    const struct field *pf = get(f, nf, "parent_id");
    if (pf && pf->is_str) {
        uint32_t pid = intern_field(r, pf);
        ensure_span_map(r, pid);
        if (!r->span_of[pid])
            FAIL("%s: line %llu: parent_id \"%s\" names no earlier span (expected the id of a span_start before "
                 "it)",
                 r->path, (unsigned long long)r->line,
                 stint_model_str(m, pid, NULL));
        s.parent = r->span_of[pid] - 1;
    }
    uint32_t idx = stint_model_add_slice(m, &s);
    r->span_of[sid] = idx + 1;
    if (m->flags & STINT_MODEL_KEEP_ARGS) {
        struct stint_arg a = {.key = stint_model_intern(m, "args.id", 7), .kind = STINT_ARG_STRING, .sval = sid};
        stint_model_add_arg(m, idx, &a);
        static const char *const extra[] = {"step", "measured"};
        for (size_t k = 0; k < 2; k++) {
            const struct field *x = get(f, nf, extra[k]);
            if (!x)
                continue;
            char key[32];
            int kn = snprintf(key, sizeof key, "args.%s", extra[k]);
            struct stint_arg b = {.key = stint_model_intern(m, key, (size_t)kn)};
            if (x->is_str) {
                b.kind = STINT_ARG_STRING;
                b.sval = intern_field(r, x);
            } else {
                b.kind = STINT_ARG_BOOL;
                b.ival = x->vn == 4 && !memcmp(x->v, "true", 4);
            }
            stint_model_add_arg(m, idx, &b);
        }
    }
    return 0;
}

/* span_end (span sid, duration_ns dur): the duration of an open span, by
 * id (once). */
static int span_end(struct jreader *r, const struct field *f, int nf, uint32_t sid, int64_t dur)
{
    (void)f, (void)nf;
    struct stint_model *m = r->m;
    if (!r->span_of[sid])
        FAIL("%s: line %llu: span_end for unknown span \"%s\" (expected a span_start before it)", r->path,
             (unsigned long long)r->line, stint_model_str(m, sid, NULL));
    if (r->ended[sid])
        FAIL("%s: line %llu: a second span_end for span \"%s\" (expected one per span)", r->path,
             (unsigned long long)r->line,
             stint_model_str(m, sid, NULL));
    r->ended[sid] = 1;
    struct stint_slice *s = &STINT_BA_AT(&m->slices, struct stint_slice, r->span_of[sid] - 1);
    if (dur < 0) {
        stint_model_repair(m, STINT_REPAIR_NEGATIVE_DUR, "%s: line %llu: negative duration_ns", r->path,
                           (unsigned long long)r->line);
        dur = 0;
    }
    if (!stint_end_in_range(s->ts_ns, dur))
        FAIL("%s: line %llu: span \"%s\" would end at start_ns %lld + duration_ns %lld, outside the kept "
             "time range (expected an end below 2^62 ns)",
             r->path, (unsigned long long)r->line, stint_model_str(m, sid, NULL), (long long)s->ts_ns,
             (long long)dur);
    s->dur_ns = dur;
    return 0;
}

/* counter: one sample of the series "name" (the meta pid's). */
static int rec_counter(struct jreader *r, const struct field *f, int nf)
{
    struct stint_model *m = r->m;
    int64_t ts;
    const struct field *v = get(f, nf, "value");
    if (field_i64(get(f, nf, "timestamp_ns"), &ts) != 0 || !v || v->is_str) {
        stint_model_drop(m, "%s: line %llu: counter without integer timestamp_ns or numeric value", r->path,
                         (unsigned long long)r->line);
        return 0;
    }
    double d;
    if (field_double(v, &d) != 0) {
        stint_model_drop(m, "%s: line %llu: counter value is not a number", r->path, (unsigned long long)r->line);
        return 0;
    }
    stint_model_counter(m, r->pid, intern_field(r, get(f, nf, "name")), ts, d);
    return 0;
}

/* device_memory: samples of "device_memory <device> used_bytes|free_bytes|reserved_bytes". */
static int rec_device_memory(struct jreader *r, const struct field *f, int nf)
{
    struct stint_model *m = r->m;
    int64_t ts;
    if (field_i64(get(f, nf, "timestamp_ns"), &ts) != 0) {
        stint_model_drop(m, "%s: line %llu: device_memory without integer timestamp_ns", r->path,
                         (unsigned long long)r->line);
        return 0;
    }
    static const char *const keys[] = {"used_bytes", "free_bytes", "reserved_bytes"};
    for (int k = 0; k < 3; k++) {
        const struct field *v = get(f, nf, keys[k]);
        double d;
        if (!v)
            continue;
        if (field_double(v, &d) != 0) {
            stint_model_drop(m, "%s: line %llu: device_memory %s is not a number", r->path,
                             (unsigned long long)r->line, keys[k]);
            continue;
        }
        stint_model_counter(m, r->pid, device_series(r, get(f, nf, "device"), keys[k]), ts, d);
    }
    return 0;
}

/* dropped: the writer's report of spans it lost (struct stint_loss). */
static int rec_dropped(struct jreader *r, const struct field *f, int nf)
{
    struct stint_model *m = r->m;
    int64_t count, tid = 0, first = 0, last = 0;
    const struct field *tf = get(f, nf, "tid");
    if (field_i64(get(f, nf, "count"), &count) != 0 || count < 0 || (tf && field_i64(tf, &tid) != 0)) {
        stint_model_repair(m, STINT_REPAIR_BAD_LOSS_RECORD,
                           "%s: line %llu: a dropped record whose count (or tid) is no integer: the writer "
                           "lost spans that are not counted",
                           r->path, (unsigned long long)r->line);
        return 0;
    }
    /* first_ns and last_ns count from open, as start_ns does; both 0: not known */
    unsigned flags = tf ? STINT_LOSS_THREAD : 0;
    if (field_i64(get(f, nf, "first_ns"), &first) == 0 && field_i64(get(f, nf, "last_ns"), &last) == 0 &&
        (first || last))
        flags |= STINT_LOSS_RANGE;
    stint_model_loss(m, r->pid, tid, (uint64_t)count, first, last, flags);
    return 0;
}

/* One record (fields f[0..nf)) into the model: 0, or -1 after
 * stint_model_fail. Dispatched on its kind, decoded ("m\u0065ta" is meta),
 * as the memory analysis reads it. */
static int handle(struct jreader *r, const struct field *f, int nf)
{
    struct stint_model *m = r->m;
    const struct field *kind = get(f, nf, "kind");
    if (!kind || !kind->is_str)
        FAIL("%s: line %llu: record without a \"kind\" string (expected meta, span_start, span_end, ...)", r->path,
             (unsigned long long)r->line);
    m->events++;
    char kbuf[16 * 6];
    const char *kv = kind->v;
    size_t kvn = kind->vn;
    if (kind->esc) {
        kvn = kind->vn <= sizeof kbuf ? stint_json_unescape(kind->v, kind->vn, kbuf) : 0;
        kv = kbuf;
    }
#define KIND(s) (kvn == strlen(s) && !memcmp(kv, s, kvn))
    if (KIND("meta"))
        return rec_meta(r, f, nf);
    if (!r->have_meta)
        FAIL("%s: line %llu: no meta record before this one (expected a meta record first)", r->path,
             (unsigned long long)r->line);
    static const struct {
        const char *kind, *key; /* key: a span record's integer field, beside its string "id" */
        int (*fn)(struct jreader *r, const struct field *f, int nf, uint32_t sid, int64_t v);
    } spans[] = {{"span_start", "start_ns", span_start}, {"span_end", "duration_ns", span_end}};
    for (size_t k = 0; k < sizeof spans / sizeof spans[0]; k++)
        if (KIND(spans[k].kind)) {
            uint32_t sid;
            int64_t v;
            if (span_id_and(r, f, nf, spans[k].kind, spans[k].key, &sid, &v) != 0)
                return -1;
            return spans[k].fn(r, f, nf, sid, v);
        }
    static const struct {
        const char *kind;
        int (*fn)(struct jreader *r, const struct field *f, int nf);
    } kinds[] = {{"counter", rec_counter}, {"device_memory", rec_device_memory}, {"dropped", rec_dropped}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (KIND(kinds[k].kind))
            return kinds[k].fn(r, f, nf);
    for (int u = 0; u < STINT_UNMODELLED_KINDS; u++)
        if (KIND(stint_unmodelled_name((enum stint_unmodelled)u))) {
            m->unmodelled[u]++;
            return 0;
        }
    stint_model_repair(m, STINT_REPAIR_UNKNOWN_PHASE, "%s: line %llu: unknown record kind \"%.*s\" (ignored)", r->path,
                       (unsigned long long)r->line, (int)(kind->vn > 40 ? 40 : kind->vn), kind->v);
    return 0;
#undef KIND
}

int stint_read_jsonl(struct stint_input *in, struct stint_model *m, const struct stint_read_opts *o)
{
    stint_sizes_attach(m);
    struct jreader r = {.m = m, .path = in->path};
    const struct stint_filter *flt =
        m->sizes && o && o->event_filter && stint_filter_active(o->event_filter) ? o->event_filter : NULL;
    m->format = "jsonl";
    if (m->sizes) {
        r.id_none = stint_model_intern(m, "", 0);
        r.id_meta = stint_model_intern(m, "meta", 4);
        r.id_start = stint_model_intern(m, "span_start", 10);
        r.id_end = stint_model_intern(m, "span_end", 8);
        r.open = stint_xcalloc(1, sizeof *r.open);
    }
    int rc = 0;
    size_t pos = 0;
    for (;;) {
        const char *a = in->buf + pos, *end = in->buf + in->len;
        const char *nl = a < end ? memchr(a, '\n', (size_t)(end - a)) : NULL;
        if (!nl) {
            if (!in->eof) {
                stint_input_consume(in, pos);
                pos = 0;
                if (stint_input_fill(in) < 0) {
                    stint_model_fail(m, "%s", in->err);
                    rc = stint_input_errcode(in);
                    break;
                }
                continue;
            }
            /* a last line without '\n': the writer was cut mid-line */
            const char *q = a;
            while (q < end && (*q == ' ' || *q == '\t' || *q == '\r'))
                q++;
            if (q < end)
                stint_model_repair(m, STINT_REPAIR_TORN_RECORD,
                                   "%s: line %llu: last line has no newline (a writer cut mid-line): dropped", in->path,
                                   (unsigned long long)r.line + 1);
            break;
        }
        r.line++;
        const char *b = nl;
        if (b > a && b[-1] == '\r')
            b--;
        pos = (size_t)(nl + 1 - in->buf);
        const char *q = a;
        while (q < b && (*q == ' ' || *q == '\t'))
            q++;
        if (q == b)
            continue; /* blank line */
        int nf;
        const char *err = NULL;
        if (r.line == 1 && b - q >= 3 && !memcmp(q, "\xEF\xBB\xBF", 3)) /* a byte order mark */
            a = q + 3;
        r.records++;
        if (parse_line(&r, a, b, &nf, &err) != 0) {
            stint_model_fail(m, "%s: line %llu: invalid JSON record: %s", in->path, (unsigned long long)r.line,
                             err ? err : "?");
            rc = 1;
            break;
        }
        if (m->sizes) {
            const char *s0 = a, *t = b; /* the record from its '{' to its '}' */
            while (s0 < b && (*s0 == ' ' || *s0 == '\t'))
                s0++;
            while (t > s0 && (t[-1] == ' ' || t[-1] == '\t'))
                t--;
            size_record(&r, s0, t, r.f, nf, flt);
            continue;
        }
        if (handle(&r, r.f, nf) != 0) {
            rc = 1;
            break;
        }
    }
    if (m->sizes) /* all of it; on an error, through the line it is on */
        m->sizes->text_bytes = in->base + (rc == 0 ? in->len : pos);
    if (rc == 0 && !r.have_meta && r.line == 0 && !m->error) {
        stint_model_fail(m, "%s: no records (expected a meta record first)", in->path);
        rc = 1;
    }
    /* spans never ended (a session cut short): counted, never silent */
    for (size_t sid = 0; sid < r.span_cap; sid++)
        if (r.span_of[sid] && !r.ended[sid])
            stint_model_repair(m, STINT_REPAIR_UNFINISHED, "%s: span %s never ended (dur -1)", in->path,
                               stint_model_str(m, (uint32_t)sid, NULL));
    free(r.span_of);
    free(r.ended);
    open_free(r.open);
    free(r.tmp);
    free(r.f);
    return rc;
}
