/* SPDX-License-Identifier: MIT */
/*
 * hid.c - callable hashes: ELF GNU Build-ID, with FNV-1a-64 as the fallback.
 *
 * stint_hid_of_elf reads only inside [buf, buf+len): every offset is checked
 * before it is used, so any byte string is a valid input. Fields are read
 * little-endian whatever the host, as the reference does on its targets.
 */
#include "internal.h"

#include <link.h>

#define NT_GNU_BUILD_ID_ 3
#define PT_NOTE_ 4

uint64_t stint_fnv1a64(const void *buf, size_t len)
{
    const unsigned char *p = buf;
    uint64_t h = 0xcbf29ce484222325ULL;
    if (!p)
        len = 0; /* (NULL hashes as no bytes) */
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static uint64_t rd(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* Scans notes in [p, p+n) for the first GNU build-id with >= 8 bytes. */
static int find_build_id(const unsigned char *p, size_t n, uint64_t *out)
{
    size_t off = 0;
    while (n - off >= 12) {
        uint64_t namesz = rd(p + off, 4), descsz = rd(p + off + 4, 4), type = rd(p + off + 8, 4);
        size_t name_off = off + 12;
        size_t name_pad = (size_t)((namesz + 3) & ~(uint64_t)3);
        size_t desc_pad = (size_t)((descsz + 3) & ~(uint64_t)3);
        if (name_pad > n - name_off || desc_pad > n - name_off - name_pad)
            return 0;
        const unsigned char *name = p + name_off;
        const unsigned char *desc = name + name_pad;
        if (type == NT_GNU_BUILD_ID_ && namesz == 4 && memcmp(name, "GNU", 4) == 0 && descsz >= 8) {
            *out = rd(desc, 8);
            return 1;
        }
        off = name_off + name_pad + desc_pad;
    }
    return 0;
}

uint64_t stint_hid_of_elf(const void *buf, size_t len)
{
    const unsigned char *b = buf;
    if (!b || len < 64 || memcmp(b, "\x7f" "ELF", 4) != 0 || b[4] != 2 /* ELFCLASS64 */)
        return stint_fnv1a64(buf, buf ? len : 0);
    uint64_t phoff = rd(b + 32, 8);
    uint64_t phentsize = rd(b + 54, 2);
    uint64_t phnum = rd(b + 56, 2);
    if (phentsize < 56 || phoff > len || phnum > (len - phoff) / phentsize)
        return stint_fnv1a64(buf, len);
    for (uint64_t i = 0; i < phnum; i++) {
        const unsigned char *ph = b + phoff + i * phentsize;
        if (rd(ph, 4) != PT_NOTE_)
            continue;
        uint64_t off = rd(ph + 8, 8), filesz = rd(ph + 32, 8);
        if (off > len || filesz > len - off)
            continue;
        uint64_t id;
        if (find_build_id(b + off, (size_t)filesz, &id))
            return id;
    }
    return stint_fnv1a64(buf, len);
}

struct addr_query {
    uintptr_t addr;
    uint64_t id;
    int found;
};

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct addr_query *q = data;
    int inside = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && q->addr >= lo && q->addr < lo + ph->p_memsz)
            inside = 1;
    }
    if (!inside)
        return 0;
    q->found = 1;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        if (find_build_id(p, ph->p_memsz, &q->id))
            return 1;
    }
    return 1;
}

uint64_t stint_hid_of_address(const void *fn)
{
    struct addr_query q = {(uintptr_t)fn, 0, 0};
    dl_iterate_phdr(phdr_cb, &q);
    return q.id;
}
