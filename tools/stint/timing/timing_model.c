/* SPDX-License-Identifier: MIT */
/*
 * timing_model.c - groups `[STRACE]` spans into invocations and hid buckets
 * (see timing_model.h).
 *
 * Invariants: spans are kept in input order and chained per invocation in
 * input order; an invocation's hid is the hid of its first span and its root
 * the first depth-0 span; the orders the reference produces are reproduced
 * exactly: invocations by (pid, inv); buckets in first-seen order over that
 * list, then stably by size, largest first; a bucket's invocations stably by
 * inv. Growth is geometric; nothing is allocated per span beyond its slot.
 */
#include "timing/timing_model.h"
#include "base/cmp.h"
#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

/* Grows the array *p of *cap elements of `elem` bytes to hold `need`
 * (doubling, from 1024). Returns 0, or -1 on OOM or past 2^32-2 (unchanged). */
static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    uint64_t ncap = *cap ? (uint64_t)*cap * 2 : 1024;
    while (ncap < need)
        ncap *= 2;
    if (ncap > UINT32_MAX - 1u)
        ncap = UINT32_MAX - 1u;
    if (ncap < need)
        return -1;
    void *n = realloc(*p, (size_t)ncap * elem);
    if (!n)
        return -1;
    *p = n;
    *cap = (uint32_t)ncap;
    return 0;
}

/* Grows the byte buffer *p to hold `need` bytes (doubling, from 64 KiB).
 * Returns 0, or -1 on OOM (unchanged). */
static int grow_bytes(char **p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 65536;
    while (ncap < need)
        ncap *= 2;
    char *n = realloc(*p, ncap);
    if (!n)
        return -1;
    *p = n;
    *cap = ncap;
    return 0;
}

void stint_tm_init(struct stint_tm_model *m, int flags)
{
    memset(m, 0, sizeof *m);
    m->keep_attrs = (flags & TM_KEEP_ATTRS) != 0;
    m->keep_spans = (flags & (TM_KEEP_SPANS | TM_KEEP_ATTRS)) != 0;
}

void stint_tm_free(struct stint_tm_model *m)
{
    for (uint32_t i = 0; i < m->ninvs; i++) {
        free(m->invs[i].fon);
        stint_umap_free(&m->invs[i].fon_map);
    }
    void *owned[] = {m->str, m->str_off, m->str_slen, m->str_hash, m->spans, m->attr_off, m->attr_len,
                     m->attr_text, m->invs, m->inv_hash_keys, m->inv_hash_vals, m->order, m->buckets,
                     m->bucket_invs};
    for (size_t i = 0; i < sizeof owned / sizeof owned[0]; i++)
        free(owned[i]);
    memset(m, 0, sizeof *m);
}

const char *stint_tm_str(const struct stint_tm_model *m, uint32_t id)
{
    return m->str + m->str_off[id];
}

uint32_t stint_tm_str_len(const struct stint_tm_model *m, uint32_t id)
{
    return m->str_slen[id];
}

uint32_t stint_tm_str_find(const struct stint_tm_model *m, const char *s, size_t n)
{
    if (!m->str_hash_cap)
        return TM_NONE;
    uint32_t mask = m->str_hash_cap - 1;
    for (uint32_t i = (uint32_t)stint_hash_bytes(s, n) & mask;; i = (i + 1) & mask) {
        uint32_t v = m->str_hash[i];
        if (!v)
            return TM_NONE;
        uint32_t id = v - 1;
        if (m->str_slen[id] == n && !memcmp(stint_tm_str(m, id), s, n))
            return id;
    }
}

/* Doubles the string hash table (load <= 1/2). Returns 0 or -1 on OOM. */
static int str_rehash(struct stint_tm_model *m)
{
    uint32_t ncap = m->str_hash_cap ? m->str_hash_cap * 2 : 1024;
    uint32_t *h = calloc(ncap, sizeof *h);
    if (!h)
        return -1;
    for (uint32_t id = 0; id < m->nstr; id++) {
        uint32_t i = (uint32_t)stint_hash_bytes(stint_tm_str(m, id), m->str_slen[id]) & (ncap - 1);
        while (h[i])
            i = (i + 1) & (ncap - 1);
        h[i] = id + 1;
    }
    free(m->str_hash);
    m->str_hash = h;
    m->str_hash_cap = ncap;
    return 0;
}

/* Interns s[0,n) as is. Returns the id or TM_NONE. */
static uint32_t intern_exact(struct stint_tm_model *m, const char *s, size_t n)
{
    uint32_t id = stint_tm_str_find(m, s, n);
    if (id != TM_NONE)
        return id;
    if ((uint64_t)(m->nstr + 1) * 2 > m->str_hash_cap && str_rehash(m))
        return TM_NONE;
    uint32_t old_cap = m->str_cap_ids;
    if (grow((void **)&m->str_off, &m->str_cap_ids, m->nstr + 1, sizeof *m->str_off))
        return TM_NONE;
    /* str_slen follows str_off's capacity; it is resized only when that grew (a
     * realloc per string copies the array each time under some allocators) */
    if (m->str_cap_ids != old_cap || !m->str_slen) {
        uint32_t *sl = realloc(m->str_slen, (size_t)m->str_cap_ids * sizeof *sl);
        if (!sl) {
            m->str_cap_ids = old_cap;
            return TM_NONE;
        }
        m->str_slen = sl;
    }
    if (grow_bytes(&m->str, &m->str_cap, m->str_len + n + 1))
        return TM_NONE;
    id = m->nstr++;
    m->str_off[id] = m->str_len;
    m->str_slen[id] = (uint32_t)n;
    memcpy(m->str + m->str_len, s, n);
    m->str[m->str_len + n] = 0;
    m->str_len += n + 1;
    uint32_t mask = m->str_hash_cap - 1;
    uint32_t i = (uint32_t)stint_hash_bytes(stint_tm_str(m, id), n) & mask;
    while (m->str_hash[i])
        i = (i + 1) & mask;
    m->str_hash[i] = id + 1;
    return id;
}

/* Interns s[0,n), lowercasing it when `lower`. Returns the id or TM_NONE. */
static uint32_t intern(struct stint_tm_model *m, const char *s, size_t n, int lower)
{
    char small[64], *tmp = small, *heap = NULL;
    if (lower) {
        if (n > sizeof small && !(tmp = heap = malloc(n)))
            return TM_NONE;
        for (size_t i = 0; i < n; i++)
            tmp[i] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] + 32) : s[i];
        s = tmp;
    }
    uint32_t id = intern_exact(m, s, n);
    free(heap);
    return id;
}

/* Doubles the invocation hash table (load <= 1/2). Returns 0 or -1 on OOM. */
static int inv_rehash(struct stint_tm_model *m)
{
    uint32_t ncap = m->inv_hash_cap ? m->inv_hash_cap * 2 : 4096;
    uint64_t *k = malloc((size_t)ncap * 2 * sizeof *k);
    uint32_t *v = calloc(ncap, sizeof *v);
    if (!k || !v) {
        free(k);
        free(v);
        return -1;
    }
    for (uint32_t x = 0; x < m->ninvs; x++) {
        uint32_t i = (uint32_t)stint_hash_pair(m->invs[x].pid, m->invs[x].inv) & (ncap - 1);
        while (v[i])
            i = (i + 1) & (ncap - 1);
        v[i] = x + 1;
        k[2 * i] = m->invs[x].pid;
        k[2 * i + 1] = m->invs[x].inv;
    }
    free(m->inv_hash_keys);
    free(m->inv_hash_vals);
    m->inv_hash_keys = k;
    m->inv_hash_vals = v;
    m->inv_hash_cap = ncap;
    return 0;
}

static uint32_t find_inv_slow(struct stint_tm_model *m, uint64_t pid, uint64_t inv, uint32_t hid);

/* The invocation (pid, inv), created with `hid` when new (TM_NONE: set by the
 * caller). A small direct-mapped
 * cache in front of the hash table holds the invocations in flight (one per
 * logging thread, interleaved line by line). */
static uint32_t find_inv(struct stint_tm_model *m, uint64_t pid, uint64_t inv, uint32_t hid)
{
    uint32_t slot = (uint32_t)stint_hash_slot(pid ^ inv * STINT_HASH_GOLDEN, 8);
    uint32_t c = m->inv_cache[slot];
    if (c && m->invs[c - 1].pid == pid && m->invs[c - 1].inv == inv)
        return c - 1;
    uint32_t x = find_inv_slow(m, pid, inv, hid);
    if (x != TM_NONE)
        m->inv_cache[slot] = x + 1;
    return x;
}

/* find_inv through the hash table. */
static uint32_t find_inv_slow(struct stint_tm_model *m, uint64_t pid, uint64_t inv, uint32_t hid)
{
    if ((uint64_t)(m->ninvs + 1) * 2 > m->inv_hash_cap && inv_rehash(m))
        return TM_NONE;
    uint32_t mask = m->inv_hash_cap - 1;
    uint32_t i = (uint32_t)stint_hash_pair(pid, inv) & mask;
    for (;; i = (i + 1) & mask) {
        uint32_t v = m->inv_hash_vals[i];
        if (!v)
            break;
        if (m->inv_hash_keys[2 * i] == pid && m->inv_hash_keys[2 * i + 1] == inv)
            return v - 1;
    }
    if (grow((void **)&m->invs, &m->invs_cap, m->ninvs + 1, sizeof *m->invs))
        return TM_NONE;
    uint32_t x = m->ninvs++;
    struct stint_tm_inv *n = &m->invs[x];
    memset(n, 0, sizeof *n);
    n->pid = pid;
    n->inv = inv;
    n->hid = hid;
    n->first = n->last = TM_NONE;
    m->inv_hash_vals[i] = x + 1;
    m->inv_hash_keys[2 * i] = pid;
    m->inv_hash_keys[2 * i + 1] = inv;
    return x;
}

/* s[0,n) == t[0,n), 8 bytes at a time (short strings: no library call). */
static int same_bytes(const char *s, const char *t, size_t n)
{
    while (n >= 8) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, t, 8);
        if (a != b)
            return 0;
        s += 8;
        t += 8;
        n -= 8;
    }
    while (n--)
        if (*s++ != *t++)
            return 0;
    return 1;
}

/* Interns through a direct-mapped cache of 2^bits slots keyed by the length
 * and the first and last 8 bytes: records repeat a few dozen names and a few
 * hundred hids, interleaved, and a hit skips hashing the whole string. A hid
 * written with capitals misses (the cache holds the lowercased text) and is
 * lowercased by intern(). */
static uint32_t intern_cached(struct stint_tm_model *m, uint32_t *cache, unsigned bits, const char *s, size_t n, int lower)
{
    uint64_t a = 0, b = 0;
    memcpy(&a, s, n < 8 ? n : 8);
    if (n > 8)
        memcpy(&b, s + n - 8, 8);
    uint32_t slot = (uint32_t)stint_hash_slot(a ^ b * STINT_HASH_GOLDEN ^ n, bits);
    uint32_t id = cache[slot];
    if (id && m->str_slen[id - 1] == n && same_bytes(stint_tm_str(m, id - 1), s, n))
        return id - 1;
    id = intern(m, s, n, lower);
    if (id != TM_NONE)
        cache[slot] = id + 1;
    return id;
}

/* Names per invocation past which the first span of a name is found through
 * a map rather than by a scan of fon (which costs no memory). */
#define FON_SCAN_MAX 32

static int cmp_fon_name(const void *pa, const void *pb)
{
    uint32_t a = ((const struct stint_tm_fon *)pa)->name, b = ((const struct stint_tm_fon *)pb)->name;
    return (a > b) - (a < b);
}

int stint_tm_add(struct stint_tm_model *m, const struct stint_mparse_record *r)
{
    uint32_t name = intern_cached(m, m->name_cache, 8, r->name.ptr, r->name.len, 0);
    if (name == TM_NONE || m->nrecords == TM_NONE - 1)
        goto oom;
    uint32_t x = find_inv(m, r->pid, r->inv, TM_NONE);
    if (x == TM_NONE)
        goto oom;
    struct stint_tm_inv *iv = &m->invs[x];
    /* The hid matters for an invocation's first span (it names the bucket) and
     * for every kept span (the Chrome trace prints each span's own). */
    uint32_t hid = TM_NONE;
    if (iv->hid == TM_NONE || m->keep_spans) {
        hid = intern_cached(m, m->hid_cache, 8, r->hid_text.ptr, r->hid_text.len, 1);
        if (hid == TM_NONE)
            goto oom;
        if (iv->hid == TM_NONE)
            iv->hid = hid;
    }
    uint32_t depth = r->depth > UINT32_MAX ? UINT32_MAX : (uint32_t)r->depth;
    if (depth == 0 && !iv->has_root) {
        iv->has_root = 1;
        iv->root_name = name;
        iv->root_dur_ns = r->dur_ns;
    }
    /* First span of this name? Names with small ids (the common ones) are
     * answered by a bit mask; the list is sorted by name id in stint_tm_analyze. */
    {
        int seen = 0;
        if (name < 64) {
            seen = (iv->seen_small >> name) & 1;
        } else if (iv->fon_len < FON_SCAN_MAX && !iv->fon_map.cap) {
            for (uint32_t i = 0; i < iv->fon_len && !seen; i++)
                seen = iv->fon[i].name == name;
        } else { /* many names: a map (a scan per record made them quadratic) */
            int isnew;
            if (!iv->fon_map.cap)
                for (uint32_t i = 0; i < iv->fon_len; i++)
                    (void)stint_umap_get(&iv->fon_map, iv->fon[i].name, 0, &isnew);
            (void)stint_umap_get(&iv->fon_map, name, 0, &isnew);
            seen = !isnew;
        }
        if (!seen) {
            if (iv->fon_len == iv->fon_cap) {
                uint32_t ncap = iv->fon_cap ? iv->fon_cap * 2 : 8;
                struct stint_tm_fon *nf = ncap > iv->fon_cap ? realloc(iv->fon, (size_t)ncap * sizeof *nf) : NULL;
                if (!nf)
                    goto oom;
                iv->fon = nf;
                iv->fon_cap = ncap;
            }
            struct stint_tm_fon *f = &iv->fon[iv->fon_len++];
            f->ts_ns = r->ts_ns;
            f->dur_ns = r->dur_ns;
            f->name = name;
            f->depth = depth;
            if (name < 64)
                iv->seen_small |= (uint64_t)1 << name;
        }
    }
    iv->nspans++;
    m->nrecords++;
    if (!m->keep_spans)
        return 0;
    if (grow((void **)&m->spans, &m->spans_cap, m->nspans + 1, sizeof *m->spans))
        goto oom;
    uint32_t s = m->nspans;
    struct stint_tm_span *sp = &m->spans[s];
    sp->ts_ns = r->ts_ns;
    sp->dur_ns = r->dur_ns;
    sp->tid = r->tid;
    sp->name = name;
    sp->hid = hid;
    sp->inv = x;
    sp->next = TM_NONE;
    sp->depth = depth;
    sp->dev = (uint32_t)stint_mparse_is_device(r);
    if (m->keep_attrs) {
        if (m->attr_cap_ids != m->spans_cap) {
            uint64_t *o = realloc(m->attr_off, (size_t)m->spans_cap * sizeof *o);
            if (o)
                m->attr_off = o;
            uint32_t *l = realloc(m->attr_len, (size_t)m->spans_cap * sizeof *l);
            if (l)
                m->attr_len = l;
            if (!o || !l)
                goto oom;
            m->attr_cap_ids = m->spans_cap;
        }
        if (grow_bytes(&m->attr_text, &m->attr_text_cap, m->attr_text_len + r->attrs.len + 1))
            goto oom;
        memcpy(m->attr_text + m->attr_text_len, r->attrs.ptr, r->attrs.len);
        m->attr_off[s] = m->attr_text_len;
        m->attr_len[s] = (uint32_t)r->attrs.len;
        m->attr_text_len += r->attrs.len;
    }
    m->nspans++;
    if (iv->last == TM_NONE)
        iv->first = s;
    else
        m->spans[iv->last].next = s;
    iv->last = s;
    return 0;
oom:
    m->oom = 1;
    return -1;
}

struct stint_mparse_text stint_tm_attrs(const struct stint_tm_model *m, uint32_t span)
{
    struct stint_mparse_text t = {"", 0};
    if (m->keep_attrs && span < m->nspans) {
        t.ptr = m->attr_text + m->attr_off[span];
        t.len = m->attr_len[span];
    }
    return t;
}

/* ---- analysis --------------------------------------------------------------- */

/* Invocation indices by (pid, inv); ctx: the model. */
static int cmp_pid_inv(const void *a, const void *b, void *ctx)
{
    const struct stint_tm_model *m = ctx;
    const struct stint_tm_inv *x = &m->invs[*(const uint32_t *)a];
    const struct stint_tm_inv *y = &m->invs[*(const uint32_t *)b];
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->inv != y->inv)
        return x->inv < y->inv ? -1 : 1;
    return 0;
}

/* Stable merge sort of invocation indices by inv (ties keep their order). */
static void sort_by_inv(const struct stint_tm_model *m, uint32_t *a, uint32_t *tmp, uint32_t n)
{
    if (n < 2)
        return;
    uint32_t h = n / 2;
    sort_by_inv(m, a, tmp, h);
    sort_by_inv(m, a + h, tmp, n - h);
    uint32_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = m->invs[a[j]].inv < m->invs[a[i]].inv ? a[j++] : a[i++];
    while (i < h)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    memcpy(a, tmp, (size_t)n * sizeof *a);
}

int stint_tm_analyze(struct stint_tm_model *m)
{
    uint32_t n = m->ninvs;
    m->order = malloc(((size_t)n + 1) * sizeof *m->order);
    m->bucket_invs = malloc(((size_t)n + 1) * sizeof *m->bucket_invs);
    m->buckets = malloc(((size_t)n + 1) * sizeof *m->buckets);
    uint32_t *bucket_of = malloc(((size_t)m->nstr + 1) * sizeof *bucket_of);
    uint32_t *tmp = malloc(((size_t)n + 1) * sizeof *tmp);
    if (!m->order || !m->bucket_invs || !m->buckets || !bucket_of || !tmp) {
        free(bucket_of);
        free(tmp);
        m->oom = 1;
        return -1;
    }
    for (uint32_t i = 0; i < n; i++)
        m->order[i] = i;
    stint_xqsort_r(m->order, n, sizeof *m->order, cmp_pid_inv, m);

    /* First-of-name lists sorted by name id (unique within a list) */
    for (uint32_t x = 0; x < n; x++)
        if (m->invs[x].fon_len > 1)
            stint_xqsort(m->invs[x].fon, m->invs[x].fon_len, sizeof *m->invs[x].fon, cmp_fon_name);

    /* Buckets in first-seen order over (pid, inv). */
    for (uint32_t i = 0; i < m->nstr; i++)
        bucket_of[i] = TM_NONE;
    uint32_t nb = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t h = m->invs[m->order[i]].hid;
        if (bucket_of[h] == TM_NONE) {
            bucket_of[h] = nb;
            m->buckets[nb].hid = h;
            m->buckets[nb].n = 0;
            nb++;
        }
        m->buckets[bucket_of[h]].n++;
    }
    /* Stable sort by size, largest first (insertion sort is stable; few buckets
     * usually, but use a counting pass to stay linear-ish when many). */
    {
        struct stint_tm_bucket *sorted = malloc(((size_t)nb + 1) * sizeof *sorted);
        if (!sorted) {
            free(bucket_of);
            free(tmp);
            m->oom = 1;
            return -1;
        }
        /* merge sort via tmp indices */
        uint32_t *idx = malloc(((size_t)nb + 1) * sizeof *idx);
        uint32_t *idx2 = malloc(((size_t)nb + 1) * sizeof *idx2);
        if (!idx || !idx2) {
            free(idx);
            free(idx2);
            free(sorted);
            free(bucket_of);
            free(tmp);
            m->oom = 1;
            return -1;
        }
        for (uint32_t i = 0; i < nb; i++)
            idx[i] = i;
        for (uint32_t width = 1; width < nb; width *= 2) {
            for (uint32_t lo = 0; lo < nb; lo += 2 * width) {
                uint32_t mid = lo + width < nb ? lo + width : nb;
                uint32_t hi = lo + 2 * width < nb ? lo + 2 * width : nb;
                uint32_t i = lo, j = mid, k = lo;
                while (i < mid && j < hi)
                    idx2[k++] = m->buckets[idx[j]].n > m->buckets[idx[i]].n ? idx[j++] : idx[i++];
                while (i < mid)
                    idx2[k++] = idx[i++];
                while (j < hi)
                    idx2[k++] = idx[j++];
            }
            uint32_t *t = idx;
            idx = idx2;
            idx2 = t;
        }
        for (uint32_t i = 0; i < nb; i++)
            sorted[i] = m->buckets[idx[i]];
        for (uint32_t i = 0; i < nb; i++)
            bucket_of[sorted[i].hid] = i;
        memcpy(m->buckets, sorted, (size_t)nb * sizeof *sorted);
        free(idx);
        free(idx2);
        free(sorted);
    }
    m->nbuckets = nb;
    uint32_t off = 0;
    for (uint32_t b = 0; b < nb; b++) {
        m->buckets[b].off = off;
        off += m->buckets[b].n;
        m->buckets[b].n = 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        struct stint_tm_bucket *b = &m->buckets[bucket_of[m->invs[m->order[i]].hid]];
        m->bucket_invs[b->off + b->n++] = m->order[i];
    }
    for (uint32_t b = 0; b < nb; b++)
        sort_by_inv(m, m->bucket_invs + m->buckets[b].off, tmp, m->buckets[b].n);
    free(bucket_of);
    free(tmp);
    return 0;
}

const struct stint_tm_fon *stint_tm_fon_find(const struct stint_tm_model *m, uint32_t inv, uint32_t name)
{
    const struct stint_tm_inv *iv = &m->invs[inv];
    uint32_t lo = 0, hi = iv->fon_len;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (iv->fon[mid].name < name)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < iv->fon_len && iv->fon[lo].name == name ? &iv->fon[lo] : NULL;
}

const char *stint_tm_bucket_label(const struct stint_tm_model *m, uint32_t b, char *buf)
{
    if (b == 0 && m->buckets[0].n > 1)
        return strcpy(buf, "decode");
    if (m->buckets[b].n == 1)
        return strcpy(buf, "prefill");
    const char *h = stint_tm_str(m, m->buckets[b].hid);
    size_t k = strlen(h) < 8 ? strlen(h) : 8;
    memcpy(buf, h, k);
    buf[k] = 0;
    return buf;
}
