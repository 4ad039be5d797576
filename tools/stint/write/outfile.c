/* SPDX-License-Identifier: MIT */
/*
 * outfile.c - atomic file outputs and the output-is-an-input check
 * (outfile.h).
 *
 * Invariants: a regular target is only ever changed by one rename(2) of a
 * complete temporary file that lives in the target's folder (a target that
 * exists and is no regular file, such as /dev/null or a FIFO, is written in
 * place: renaming over it would replace the device node); every temporary this
 * process created and has not renamed is in the pending list, from which the
 * exit and signal paths unlink it (the list holds fixed buffers: the signal
 * handler only reads them and calls unlink, which is async-signal-safe).
 */
#include "write/outfile.h"

#include "base/exitcode.h"
#include "base/term.h"
#include "base/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PENDING_MAX 8 /* temporaries open at once (the commands have one) */
#define TMP_PATH_MAX 4096

static char pending[PENDING_MAX][TMP_PATH_MAX];
static volatile sig_atomic_t pending_used[PENDING_MAX];

static const int caught[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
static struct sigaction caught_old[sizeof caught / sizeof caught[0]];

/* Unlinks every pending temporary (exit, signals). */
static void unlink_pending(void)
{
    for (int i = 0; i < PENDING_MAX; i++)
        if (pending_used[i]) {
            unlink(pending[i]);
            pending_used[i] = 0;
        }
}

static void on_signal(int sig)
{
    unlink_pending();
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++)
        if (caught[i] == sig)
            sigaction(sig, &caught_old[i], NULL); /* what the program had: default, most often */
    raise(sig);
}

/* Installs the exit and signal cleanup, once. */
static void install_cleanup(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    atexit(unlink_pending);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++) {
        sigaction(caught[i], NULL, &caught_old[i]);
        if (caught_old[i].sa_handler == SIG_IGN)
            continue; /* (a signal the caller ignores stays ignored: it cannot end the process) */
        sigaction(caught[i], &sa, NULL);
    }
}

/* A pending slot for tmp, or -1 when the list is full (then no cleanup on a
 * signal: the output still works). */
static int pending_add(const char *tmp)
{
    size_t n = strlen(tmp);
    if (n >= TMP_PATH_MAX)
        return -1;
    for (int i = 0; i < PENDING_MAX; i++)
        if (!pending_used[i]) {
            memcpy(pending[i], tmp, n + 1);
            pending_used[i] = 1;
            return i;
        }
    return -1;
}

static void pending_drop(int slot)
{
    if (slot >= 0)
        pending_used[slot] = 0;
}

static void say_errno(const char *cmd, const char *what, const char *path, int err)
{
    fprintf(stderr, "stint %s: %s ", cmd, what);
    stint_term_msg(stderr, path);
    fprintf(stderr, ": %s\n", strerror(err));
}

/* The file to replace for path: the file a symbolic link points to, else
 * path itself (allocated). */
static char *resolve_target(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        char *r = realpath(path, NULL);
        if (r) {
            char *c = stint_xstrdup(r);
            free(r);
            return c;
        }
    }
    return stint_xstrdup(path);
}

int stint_outfile_open(struct stint_outfile *o, const char *cmd, const char *path)
{
    memset(o, 0, sizeof *o);
    o->slot = -1;
    if (!strcmp(path, "-")) {
        o->f = stdout;
        return 0;
    }
    char *target = resolve_target(path);
    struct stat st;
    int exists = stat(target, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        say_errno(cmd, "cannot write", path, EISDIR);
        free(target);
        return EISDIR;
    }
    if (exists && !S_ISREG(st.st_mode)) {
        /* a device, FIFO or socket (/dev/null, /dev/stdout, a named pipe) is written to, never
         * replaced: a rename over it would swap the device node for a plain file */
        free(target);
        o->f = fopen(path, "w");
        if (!o->f) {
            int err = errno;
            say_errno(cmd, "cannot write", path, err);
            return err;
        }
        o->target = stint_xstrdup(path); /* (tmp stays NULL: commit closes, nothing to rename) */
        return 0;
    }
    /* the temporary: "<dir>/.<base>.stint-XXXXXX", next to the target */
    const char *slash = strrchr(target, '/');
    size_t dl = slash ? (size_t)(slash - target) + 1 : 0;
    const char *base = target + dl;
    size_t tl = dl + 1 + strlen(base) + sizeof ".stint-XXXXXX";
    char *tmp = stint_xmalloc(tl);
    snprintf(tmp, tl, "%.*s.%s.stint-XXXXXX", (int)dl, target, base);
    install_cleanup();
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int err = errno;
        say_errno(cmd, "cannot write", path, err);
        free(tmp);
        free(target);
        return err;
    }
    o->slot = pending_add(tmp);
    mode_t mode;
    if (exists)
        mode = st.st_mode & 07777;
    else {
        mode_t um = umask(0);
        umask(um);
        mode = 0666 & ~um;
    }
    (void)fchmod(fd, mode); /* (mkstemp makes 0600; a failure leaves it private, which is safe) */
    o->f = fdopen(fd, "w");
    if (!o->f) {
        int err = errno;
        close(fd);
        unlink(tmp);
        pending_drop(o->slot);
        say_errno(cmd, "cannot write", path, err);
        free(tmp);
        free(target);
        memset(o, 0, sizeof *o);
        o->slot = -1;
        return err;
    }
    static char obuf[1 << 18];
    setvbuf(o->f, obuf, _IOFBF, sizeof obuf);
    o->target = target;
    o->tmp = tmp;
    return 0;
}

/* Frees o's paths and empties it. */
static void outfile_clear(struct stint_outfile *o)
{
    free(o->target);
    free(o->tmp);
    memset(o, 0, sizeof *o);
    o->slot = -1;
}

int stint_outfile_commit(struct stint_outfile *o, const char *cmd)
{
    if (!o->f)
        return STINT_EXIT_IO;
    if (!o->tmp) { /* stdout, or a file that is not a regular one: written in place */
        errno = 0;
        int bad = ferror(o->f) != 0;
        int err = bad ? (errno ? errno : EIO) : 0;
        if (o->f == stdout) {
            if (fflush(o->f) != 0 && !err)
                err = errno ? errno : EIO;
        } else if (fclose(o->f) != 0 && !err)
            err = errno ? errno : EIO;
        o->f = NULL;
        if (err) {
            say_errno(cmd, "write error on", o->target ? o->target : "stdout", err);
            outfile_clear(o);
            return STINT_EXIT_IO;
        }
        outfile_clear(o);
        return STINT_EXIT_OK;
    }
    int err = 0;
    if (ferror(o->f))
        err = errno ? errno : EIO;
    if (fflush(o->f) != 0 && !err)
        err = errno ? errno : EIO;
    if (fclose(o->f) != 0 && !err)
        err = errno ? errno : EIO;
    o->f = NULL;
    if (!err && rename(o->tmp, o->target) != 0)
        err = errno;
    if (err) {
        unlink(o->tmp);
        pending_drop(o->slot);
        say_errno(cmd, "write error on", o->target, err);
        fprintf(stderr, "stint %s: ", cmd);
        stint_term_msg(stderr, o->target);
        fputs(" is left as it was\n", stderr);
        outfile_clear(o);
        return STINT_EXIT_IO;
    }
    pending_drop(o->slot);
    outfile_clear(o);
    return STINT_EXIT_OK;
}

void stint_outfile_abort(struct stint_outfile *o)
{
    if (o->tmp) {
        if (o->f)
            fclose(o->f);
        unlink(o->tmp);
        pending_drop(o->slot);
    } else if (o->f == stdout)
        fflush(o->f);
    else if (o->f)
        fclose(o->f);
    outfile_clear(o);
}

int stint_outfile_same(const char *path, const char *input)
{
    struct stat a, b;
    if (!strcmp(path, "-") || !strcmp(input, "-"))
        return 0;
    if (stat(path, &a) != 0 || stat(input, &b) != 0)
        return 0;
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int stint_outfile_refuse_input(const char *cmd, const char *path, const char *const *inputs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!inputs[i] || !stint_outfile_same(path, inputs[i]))
            continue;
        fprintf(stderr, "stint %s: the output ", cmd);
        stint_term_msg(stderr, path);
        fputs(" is the input ", stderr);
        stint_term_msg(stderr, inputs[i]);
        fputs(" (the same file, by name or by a link): write elsewhere\n", stderr);
        return STINT_EXIT_USAGE;
    }
    return 0;
}
