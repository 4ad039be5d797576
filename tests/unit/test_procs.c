/* SPDX-License-Identifier: MIT */
/* Several processes appending to one marker log: every line parses and none
 * is torn. fork: the child traces with its own pid and without the parent's
 * unwritten records. */
#include "check.h"
#include "internal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

enum { NPROC = 8, NSPANS = 10000 };

/* Checks one line against the full grammar; returns the pid or -1. */
static long parse_line(const char *line, char *name_out, size_t name_cap)
{
    long pid, tid, depth;
    unsigned long long inv, hid;
    long long ts, dur;
    char name[256];
    int used = 0;
    if (sscanf(line, "[STRACE] v=1 pid=%ld tid=%ld inv=%llu hid=%llx depth=%ld name=%255s ts=%lld dur=%lld %n", &pid,
               &tid, &inv, &hid, &depth, name, &ts, &dur, &used) != 8 || used == 0)
        return -1;
    if (line[used - 1] != ' ' && line[used] != '\0')
        return -1;
    if (name_out)
        snprintf(name_out, name_cap, "%s", name);
    return pid;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    *len = fread(b, 1, (size_t)n, f);
    b[*len] = '\0';
    fclose(f);
    return b;
}

static void shared_log(void)
{
    char path[] = "/tmp/stint_procs_XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    for (int p = 0; p < NPROC; p++) {
        pid_t c = fork();
        if (c == 0) {
            if (stint_markers_to_path(path, 0) != STINT_OK)
                _exit(2);
            for (int i = 0; i < NSPANS; i++) {
                STINT_SCOPE_A("proc.span.with.a.longer.name.to.make.lines.long", "k=v padding=xxxxxxxxxxxxxxxxxxxx");
            }
            stint_stats st;
            stint_get_stats(&st);
            _exit(stint_shutdown() == STINT_OK && st.spans_dropped == 0 ? 0 : 3);
        }
    }
    int ok = 1;
    for (int p = 0; p < NPROC; p++) {
        int status;
        wait(&status);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            ok = 0;
    }
    CHECK(ok);
    size_t len;
    char *buf = read_file(path, &len);
    REQUIRE(buf);
    long lines = 0, bad = 0;
    for (char *line = buf; *line;) {
        char *nl = strchr(line, '\n');
        if (!nl) {
            bad++;
            break;
        }
        *nl = '\0';
        if (parse_line(line, NULL, 0) < 0)
            bad++;
        lines++;
        line = nl + 1;
    }
    printf("shared log: %ld lines, %ld torn or bad\n", lines, bad);
    CHECK_EQ_I64(lines, (long)NPROC * NSPANS);
    CHECK_EQ_I64(bad, 0);
    free(buf);
    unlink(path);
}

__attribute__((unused)) static void fork_child(void)
{
    char path[] = "/tmp/stint_fork_XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    REQUIRE(stint_markers_to_path(path, 0) == STINT_OK);
    REQUIRE(stint_flush() == STINT_OK);
    { STINT_SCOPE("parent.pending"); } /* not yet written when we fork */
    pid_t c = fork();
    if (c == 0) {
        { STINT_SCOPE("child.span"); }
        _exit(stint_shutdown() == STINT_OK ? 0 : 3);
    }
    int status;
    waitpid(c, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    REQUIRE(stint_flush() == STINT_OK);
    size_t len;
    char *buf = read_file(path, &len);
    REQUIRE(buf);
    int parent_pending = 0, child_spans = 0, wrong = 0;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        char name[256];
        long pid = parse_line(line, name, sizeof name);
        if (!strcmp(name, "parent.pending")) {
            parent_pending++;
            wrong += pid != getpid();
        } else if (!strcmp(name, "child.span")) {
            child_spans++;
            wrong += pid != c;
        }
    }
    CHECK_EQ_I64(parent_pending, 1);
    CHECK_EQ_I64(child_spans, 1);
    CHECK_EQ_I64(wrong, 0);
    free(buf);
    unlink(path);
}

int main(void)
{
    setenv("STINT_FLUSH_MS", "5000", 1); /* the writer does not drain by itself during the test */
    shared_log();
#if CHECK_TSAN
    /* ThreadSanitizer cannot follow a child that starts threads after a
     * multi-threaded fork; the plain and ASan runs cover this case. */
    printf("note: fork test skipped under ThreadSanitizer\n");
#else
    fork_child();
#endif
    CHECK_DONE();
}
