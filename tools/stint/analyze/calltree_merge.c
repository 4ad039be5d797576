/* SPDX-License-Identifier: MIT */
/*
 * calltree_merge.c - names that differ only by a trailing number taken as
 * one (`tree --merge-numbered`): ProfilerStep#1 ... ProfilerStep#1000 become
 * one path node, ProfilerStep#N, with the calls, totals, self times and
 * durations of all of them (analysis.h).
 *
 * Invariants: the source tree is not changed; every source node goes to
 * exactly one merged node (its parent's merged node, keyed by the family's
 * first name), so calls, totals and self times add up to the source's and
 * each merged node's durations are the union of its members' (sorted);
 * siblings whose names are not numbered stay apart as before. Work and
 * memory are linear in the tree's nodes and durations.
 */
#include "analyze/analysis.h"
#include "base/hash.h"
#include "base/tsparse.h"
#include "base/xalloc.h"

#include <stdlib.h>
#include <string.h>

size_t stint_name_number_stem(const char *name, size_t len)
{
    size_t d = len;
    while (d && name[d - 1] >= '0' && name[d - 1] <= '9')
        d--;
    return d == len || d == 0 ? len : d;
}

/* An open-addressing table of uint32 keys pairs, 0 meaning empty. */
struct pair_tab {
    uint64_t *k; /* (a << 32 | b) + 1 */
    uint32_t *v;
    size_t cap, n;
};

static size_t tab_slot(const struct pair_tab *t, uint64_t key)
{
    size_t i = (size_t)stint_hash_bytes((const char *)&key, sizeof key) & (t->cap - 1);
    while (t->k[i] && t->k[i] != key)
        i = (i + 1) & (t->cap - 1);
    return i;
}

static void tab_grow(struct pair_tab *t)
{
    struct pair_tab o = *t;
    t->cap = o.cap ? o.cap * 2 : 1024;
    t->k = stint_xcalloc(t->cap, sizeof *t->k);
    t->v = stint_xmalloc(t->cap * sizeof *t->v);
    for (size_t i = 0; i < o.cap; i++)
        if (o.k[i]) {
            size_t j = tab_slot(t, o.k[i]);
            t->k[j] = o.k[i];
            t->v[j] = o.v[i];
        }
    free(o.k);
    free(o.v);
}

/* Key (a, b)'s value, *found 1; or, when absent, the key's new slot
 * (*found 0: the caller stores the value at t->v[slot]). */
static uint32_t tab_get(struct pair_tab *t, uint32_t a, uint32_t b, int *found)
{
    if (2 * (t->n + 1) > t->cap)
        tab_grow(t);
    uint64_t key = ((uint64_t)a << 32 | b) + 1;
    size_t i = tab_slot(t, key);
    *found = t->k[i] != 0;
    if (!*found) {
        t->k[i] = key;
        t->n++;
        return (uint32_t)i; /* (the caller sets t->v[i]) */
    }
    return t->v[i];
}

/* Per name id up to maxname: its family's first name (itself when the name
 * ends in no number). Families are keyed by the stem's bytes. */
static uint32_t *family_reps(const struct stint_model *m, uint32_t maxname, const uint8_t *used)
{
    uint32_t *rep = stint_xmalloc(((size_t)maxname + 1) * sizeof *rep);
    size_t cap = 64, n = 0;
    uint32_t *slots = stint_xcalloc(cap, sizeof *slots); /* rep + 1, by stem hash */
    for (uint32_t id = 0; id <= maxname; id++) {
        rep[id] = id;
        if (!used[id])
            continue;
        size_t len;
        const char *s = stint_model_str(m, id, &len);
        size_t stem = stint_name_number_stem(s, len);
        if (stem == len)
            continue;
        if (2 * (n + 1) > cap) { /* rehash the stems */
            uint32_t *o = slots;
            size_t ocap = cap;
            cap *= 2;
            slots = stint_xcalloc(cap, sizeof *slots);
            for (size_t i = 0; i < ocap; i++)
                if (o[i]) {
                    size_t ol;
                    const char *os = stint_model_str(m, o[i] - 1, &ol);
                    size_t j = (size_t)stint_hash_bytes(os, stint_name_number_stem(os, ol)) & (cap - 1);
                    while (slots[j])
                        j = (j + 1) & (cap - 1);
                    slots[j] = o[i];
                }
            free(o);
        }
        size_t j = (size_t)stint_hash_bytes(s, stem) & (cap - 1);
        for (;; j = (j + 1) & (cap - 1)) {
            if (!slots[j]) {
                slots[j] = id + 1;
                n++;
                break;
            }
            size_t ol;
            const char *os = stint_model_str(m, slots[j] - 1, &ol);
            if (stint_name_number_stem(os, ol) == stem && !memcmp(os, s, stem)) {
                rep[id] = slots[j] - 1;
                break;
            }
        }
    }
    free(slots);
    return rep;
}

void stint_calltree_merge_numbered(struct stint_calltree *dst, const struct stint_calltree *src,
                                   const struct stint_model *m)
{
    memset(dst, 0, sizeof *dst);
    uint32_t maxname = 0;
    for (size_t k = 0; k < src->n; k++)
        maxname = src->nodes[k].name > maxname ? src->nodes[k].name : maxname;
    uint8_t *used = stint_xcalloc((size_t)maxname + 1, 1);
    for (size_t k = 2; k < src->n; k++)
        used[src->nodes[k].name] = 1;
    uint32_t *rep = family_reps(m, maxname, used);
    free(used);
    dst->nodes = stint_xcalloc(src->n ? src->n : 1, sizeof *dst->nodes);
    dst->cap = src->n ? src->n : 1;
    size_t *dcap = stint_xcalloc(src->n ? src->n : 1, sizeof *dcap);
    uint32_t *to = stint_xmalloc((src->n ? src->n : 1) * sizeof *to); /* source node -> merged node */
    struct pair_tab tab = {0};
    for (size_t k = 0; k < src->n; k++) {
        const struct stint_tnode *s = &src->nodes[k];
        uint32_t d;
        if (k < 2) { /* the two invisible roots stay */
            d = (uint32_t)dst->n++;
            dst->nodes[d] = (struct stint_tnode){.parent = STINT_NO_ID, .name = s->name, .first_child = STINT_NO_ID,
                                                 .next_sibling = STINT_NO_ID, .last_child = STINT_NO_ID,
                                                 .depth = s->depth, .clock = s->clock};
        } else { /* a parent comes before its children: to[parent] is set */
            uint32_t p = to[s->parent];
            int found;
            uint32_t slot = tab_get(&tab, p, rep[s->name], &found);
            d = found ? slot : (uint32_t)dst->n;
            if (!found) {
                tab.v[slot] = d;
                dst->n++;
                dst->nodes[d] = (struct stint_tnode){.parent = p, .name = rep[s->name], .first_child = STINT_NO_ID,
                                                     .next_sibling = STINT_NO_ID, .last_child = STINT_NO_ID,
                                                     .depth = dst->nodes[p].depth + 1, .clock = s->clock};
                struct stint_tnode *pn = &dst->nodes[p];
                if (pn->last_child == STINT_NO_ID)
                    pn->first_child = d;
                else
                    dst->nodes[pn->last_child].next_sibling = d;
                pn->last_child = d;
            }
        }
        to[k] = d;
        struct stint_tnode *dn = &dst->nodes[d];
        dn->calls += s->calls;
        dn->total_ns = stint_sum_add(dn->total_ns, s->total_ns);
        dn->self_ns = stint_sum_add(dn->self_ns, s->self_ns);
        dn->max_ns = s->max_ns > dn->max_ns ? s->max_ns : dn->max_ns;
        if (s->ndurs) {
            dn->durs = stint_xgrow(dn->durs, &dcap[d], dn->ndurs + s->ndurs, sizeof *dn->durs, s->ndurs);
            memcpy(dn->durs + dn->ndurs, s->durs, s->ndurs * sizeof *s->durs);
            dn->ndurs += s->ndurs;
        }
    }
    for (size_t d = 0; d < dst->n; d++)
        stint_an_quantiles_ready(dst->nodes[d].durs, dst->nodes[d].ndurs);
    dst->spans = src->spans;
    dst->instants = src->instants;
    dst->unfinished = src->unfinished;
    dst->async = src->async;
    dst->filtered_out = src->filtered_out;
    dst->lanes_host = src->lanes_host;
    dst->lanes_device = src->lanes_device;
    free(tab.k);
    free(tab.v);
    free(to);
    free(dcap);
    free(rep);
}

struct stint_flat_row *stint_flat_merge_numbered(struct stint_flat_row *rows, size_t *count,
                                                 const struct stint_model *m)
{
    size_t n = *count;
    uint32_t maxname = 0;
    for (size_t i = 0; i < n; i++)
        maxname = rows[i].name > maxname ? rows[i].name : maxname;
    uint8_t *used = stint_xcalloc((size_t)maxname + 1, 1);
    for (size_t i = 0; i < n; i++)
        used[rows[i].name] = 1;
    uint32_t *rep = family_reps(m, maxname, used);
    free(used);
    struct pair_tab tab = {0};
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        struct stint_flat_row r = rows[i];
        int found;
        uint32_t slot = tab_get(&tab, rep[r.name], (uint32_t)r.device, &found);
        if (!found) {
            tab.v[slot] = (uint32_t)w;
            r.name = rep[r.name];
            rows[w++] = r;
            continue;
        }
        struct stint_flat_row *d = &rows[slot]; /* (found: slot is the value) */
        d->calls += r.calls;
        d->outer_calls += r.outer_calls;
        d->total_ns = stint_sum_add(d->total_ns, r.total_ns);
        d->self_ns = stint_sum_add(d->self_ns, r.self_ns);
        d->max_ns = r.max_ns > d->max_ns ? r.max_ns : d->max_ns;
    }
    free(tab.k);
    free(tab.v);
    free(rep);
    *count = w;
    return rows;
}

struct stint_name_families {
    uint32_t *rep;   /* per name id: its family's first name + 1; 0: not looked up yet */
    size_t nrep;
    uint32_t *slots; /* first name + 1 of each family, by its stem's hash */
    size_t cap, n;
};

struct stint_name_families *stint_name_families_new(void)
{
    struct stint_name_families *f = stint_xcalloc(1, sizeof *f);
    f->cap = 64;
    f->slots = stint_xcalloc(f->cap, sizeof *f->slots);
    return f;
}

void stint_name_families_free(struct stint_name_families *f)
{
    if (!f)
        return;
    free(f->rep);
    free(f->slots);
    free(f);
}

/* The slot of the stem s[0..stem) in f's table: its family's, or the empty
 * one where it goes. */
static size_t family_slot(const struct stint_name_families *f, const struct stint_model *m, const char *s, size_t stem)
{
    size_t j = (size_t)stint_hash_bytes(s, stem) & (f->cap - 1);
    for (;; j = (j + 1) & (f->cap - 1)) {
        if (!f->slots[j])
            return j;
        size_t ol;
        const char *os = stint_model_str(m, f->slots[j] - 1, &ol);
        if (stint_name_number_stem(os, ol) == stem && !memcmp(os, s, stem))
            return j;
    }
}

uint32_t stint_name_family(struct stint_name_families *f, const struct stint_model *m, uint32_t name)
{
    if (name >= f->nrep) {
        size_t n = f->nrep ? f->nrep : 256;
        while (n <= name)
            n *= 2;
        f->rep = stint_xreallocarray(f->rep, n, sizeof *f->rep);
        memset(f->rep + f->nrep, 0, (n - f->nrep) * sizeof *f->rep);
        f->nrep = n;
    }
    if (f->rep[name])
        return f->rep[name] - 1;
    size_t len;
    const char *s = stint_model_str(m, name, &len);
    size_t stem = stint_name_number_stem(s, len);
    uint32_t r = name;
    if (stem != len) {
        if (2 * (f->n + 1) > f->cap) { /* rehash the families' stems */
            uint32_t *o = f->slots;
            size_t ocap = f->cap;
            f->cap *= 2;
            f->slots = stint_xcalloc(f->cap, sizeof *f->slots);
            for (size_t i = 0; i < ocap; i++)
                if (o[i]) {
                    size_t ol;
                    const char *os = stint_model_str(m, o[i] - 1, &ol);
                    f->slots[family_slot(f, m, os, stint_name_number_stem(os, ol))] = o[i];
                }
            free(o);
        }
        size_t j = family_slot(f, m, s, stem);
        if (!f->slots[j]) {
            f->slots[j] = name + 1;
            f->n++;
        }
        r = f->slots[j] - 1;
    }
    f->rep[name] = r + 1;
    return r;
}
