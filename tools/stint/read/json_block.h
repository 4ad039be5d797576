/* SPDX-License-Identifier: MIT */
/*
 * json_block.h - the block walk of json.c (see the comment there), included
 * by json.c once per instruction set: it defines BLOCK_SKIP (the walk of an
 * object or array) and BLOCK_FAST_SKIP (the fast path that uses it for
 * objects and arrays), compiled for BLOCK_TARGET with BLOCK_CLASSIFY turning
 * 64 bytes into struct blk. Not a public header; no include guard, by design.
 */

/* Skips the object or array at p (*p is '{' or '['); returns the position
 * after it, or NULL to give up. */
__attribute__((target(BLOCK_TARGET))) static const char *BLOCK_SKIP(const char *p, const char *end)
{
    char tail[64 + STINT_JSON_PAD]; /* the last partial block, zero-filled */
    /* carried from block to block */
    uint64_t in_str = 0;  /* all ones when the block starts inside a string */
    uint64_t in_key = 0;  /* 1 when that string is a key */
    uint64_t esc_in = 0;  /* bit 0: the block's first byte is escaped */
    uint64_t sc_in = 0;   /* 1 when the previous block ends inside a scalar run */
    uint64_t cont_in = 0; /* continuation bytes of a UTF-8 sequence begun in the previous block */
    uint64_t pend[5] = {0}; /* follows() searches going on, one per kind of token */
    /* kind[d] is 1 when the container at depth d is an object (kind[0]: the
     * top, not one); an array rather than a bit stack keeps the dependency
     * from bracket to bracket down to the depth */
    uint8_t kind[66] = {0};
    unsigned depth = 0;
    if (end - p >= 2 && p[1] == p[0] + 2) /* '{}' or '[]' (one in ten args objects): nothing to walk */
        return p + 2;
    for (const char *b = p;; b += 64) {
        const char *base = b;
        if (end - b < 64) {
            if (b >= end)
                return FAST_GIVE_UP;
            size_t n = (size_t)(end - b);
            memcpy(tail, b, n);
            memset(tail + n, 0, sizeof tail - n);
            base = tail;
        }
        struct blk m;
        BLOCK_CLASSIFY(base, &m);
        uint64_t bad = 0; /* positions that make the walk give up if they are part of the value */

        /* strings */
        uint64_t esc = esc_in;
        if (m.bslash | esc_in) {
            /* each unescaped backslash escapes the next byte, which must be a one-letter escape;
             * base[64] is readable: the next block, the padding or the tail's zeros */
            uint64_t todo = m.bslash & ~esc_in, escapers = 0;
            while (todo) {
                unsigned k = (unsigned)__builtin_ctzll(todo);
                if (!esc_ok[(unsigned char)base[k + 1]]) {
                    bad |= 1ULL << k; /* nothing after it matters: the walk gives up there */
                    break;
                }
                escapers |= 1ULL << k;
                esc |= 2ULL << k;
                todo &= ~(3ULL << k);
            }
            esc_in = escapers >> 63;
        }
        uint64_t quote = m.quote & ~esc;
        uint64_t pxor = prefix_xor(quote) ^ in_str; /* opening quote and body */
        in_str = 0 - (pxor >> 63);
        uint64_t inner = pxor & ~quote, outside = ~(pxor | quote);
        uint64_t open_q = quote & pxor, close_q = quote & ~pxor;
        /* bytes < 0x20 or >= 0x80 in strings (rare): a raw control byte is an
         * error or a counted leniency, so the general skip decides; a UTF-8
         * sequence is checked here (its continuation bytes may run into the
         * next block) */
        uint64_t hi = inner & m.lt20 & ~cont_in;
        cont_in = 0;
        while (hi) {
            unsigned k = (unsigned)__builtin_ctzll(hi);
            int n = (unsigned char)base[k] < 0x80
                        ? -1
                        : stint_json_utf8_seq((const unsigned char *)b + k, (const unsigned char *)end);
            if (n <= 0) {
                bad |= 1ULL << k;
                break;
            }
            if (k + (unsigned)n > 64)
                cont_in = (1ULL << (k + (unsigned)n - 64)) - 1;
            hi &= ~(((1ULL << n) - 1) << k);
        }

        /* brackets: matching, depth, the value's end and in_obj */
        uint64_t opens = m.open & outside, closes = m.close & outside;
        uint64_t toggles = 0, upto = ~0ULL, top_in = 0 - (uint64_t)kind[depth];
        unsigned last = 64, fail = 0; /* last: the value's closing bracket, if in this block */
        /* kind[] holds 64 levels: give up (rarely needlessly) when this
         * block's opening brackets could nest deeper, instead of a check per bracket */
        if (depth + (unsigned)__builtin_popcountll(opens) > 64)
            return FAST_GIVE_UP;
        for (uint64_t t = opens | closes; t; t &= t - 1) {
            unsigned k = (unsigned)__builtin_ctzll(t);
            unsigned c = (unsigned char)base[k]; /* bit 5: '{' '}', bit 1: '{' '[' */
            unsigned is_obj = (c >> 5) & 1, is_open = (c >> 1) & 1;
            /* no branch: opens and closes come in any order. A close stores
             * above the top, where nothing is read before an open stores again */
            kind[depth + 1] = (uint8_t)is_obj;
            unsigned before = kind[depth], next = depth + 2 * is_open - 1;
            fail |= ~is_open & (before ^ is_obj) & 1; /* a close must match */
            toggles |= (uint64_t)(before ^ kind[next]) << k; /* the innermost type changes */
            depth = next;
            if (depth == 0) {
                last = k;
                upto = ~0ULL >> (63 - k);
                break;
            }
        }
        if (fail)
            return FAST_GIVE_UP;
        /* directly inside an object: the innermost type after the last bracket
         * before each byte (a bracket itself belongs to its parent, or to the
         * container it closes) */
        uint64_t in_obj = prefix_xor(toggles << 1) ^ top_in;

        /* numbers and literals */
        uint64_t sc = outside & ~(m.comma | m.colon | m.open | m.close | m.blank);
        uint64_t sc_starts = sc & ~((sc << 1) | sc_in);
        uint64_t sc_after = ~sc & ((sc << 1) | sc_in);
        sc_in = sc >> 63;
        /* bytes the masks cannot vouch for: non-digits, a leading zero
         * followed by a digit, a run that may go on in the next block */
        uint64_t odd = (sc & ~m.digit) | (sc_starts & m.zero & (m.digit >> 1)) | (sc & 1ULL << 63);
        while (odd) {
            unsigned k = (unsigned)__builtin_ctzll(odd);
            uint64_t starts_to_k = sc_starts & (~0ULL >> (63 - k));
            if (starts_to_k) { /* else the run began in an earlier block, which checked it */
                unsigned s = 63 - (unsigned)__builtin_clzll(starts_to_k);
                if (!scan_scalar(b + s, end, 1))
                    bad |= 1ULL << s;
            }
            uint64_t r = ~sc >> k; /* the run ends at its lowest set bit; none: at bit 63 */
            odd = r ? odd & (~0ULL << (k + (unsigned)__builtin_ctzll(r))) : 0;
        }

        /* grammar: what may follow each kind of token */
        uint64_t colon = m.colon & outside, comma = m.comma & outside;
        uint64_t value = open_q | sc_starts | opens;
        /* in_obj at the token after '{' is 1 and after '[' 0, so one search serves both */
        uint64_t after_open = follows_tok(opens, m.blank, &pend[0]);
        uint64_t after_colon = follows_tok(colon, m.blank, &pend[1]);
        uint64_t after_comma = follows_tok(comma, m.blank, &pend[2]);
        uint64_t key_open = open_q & in_obj & (after_open | after_comma);
        uint64_t key_close = add_carry(key_open, pxor, &in_key) & ~pxor; /* carried along each key's body */
        uint64_t after_key = follows_tok(key_close, m.blank, &pend[3]);
        uint64_t val_end = (close_q & ~key_close) | closes;
        uint64_t after_val = follows((val_end << 1) | sc_after, m.blank, &pend[4]);
        pend[4] |= val_end >> 63;
        bad |= after_open & ~((in_obj & (open_q | closes)) | (~in_obj & (value | closes)));
        bad |= after_colon & ~value;
        bad |= after_comma & ~((in_obj & open_q) | (~in_obj & value));
        bad |= after_key & ~colon;
        bad |= after_val & ~(comma | closes);
        if (bad & upto)
            return FAST_GIVE_UP;
        if (last < 64)
            return b + last + 1;
    }
}

/* The path: objects and arrays by blocks, anything else by AVX2 tokens. */
__attribute__((target(BLOCK_TARGET))) static const char *BLOCK_FAST_SKIP(const char *p, const char *end)
{
    while (p < end && is_ws(*p))
        p++;
    if (p < end && (*p == '{' || *p == '['))
        return BLOCK_SKIP(p, end);
    return fast_skip_avx2_digits(p, end);
}
