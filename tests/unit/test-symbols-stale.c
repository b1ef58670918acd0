/*
 * test-symbols-stale: symbols of files deleted or replaced while they
 * were mapped.  The mapped file is a copy of this test binary; the
 * replacement is the same binary with objcopy --redefine-sym renaming
 * the function sampled, so the two files have one layout and differ only
 * in that name: a context that read the file at the path would answer
 * "stale_impostor" where "stale_victim" ran.  Checked: a file kept open
 * at first sight (symbols__watch2) gives its own names after being
 * replaced or deleted, also through /proc/PID/map_files once the path is
 * gone; without that, a changed identity (inode, or generation) leaves
 * the address unresolved with the stale hint; a path that maps another
 * file later is another DSO with that file's names; one open per file;
 * the fds kept stay under their bound and files past it still resolve.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mmprof/symbols.h"
#include "tap.h"

__attribute__((noinline, used)) int stale_victim(int x);
__attribute__((noinline, used)) int stale_victim(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 5 + 1;
}

/* pids no process has: only the context's bookkeeping knows them */
#define FAKE_PID 1073741000

struct text_map {
	uint64_t start, len, pgoff;
};

static char dir[] = "/tmp/mmprof-stale.XXXXXX";
static char exe[PATH_MAX];

/* This binary's executable mapping, the one holding stale_victim. */
static int find_text(struct text_map *tm)
{
	uint64_t want = (uint64_t)(uintptr_t)stale_victim;
	FILE *fp = fopen("/proc/self/maps", "re");
	char line[PATH_MAX + 128];
	int err = -1;

	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long a, b, off;
		char perms[8];

		if (sscanf(line, "%llx-%llx %7s %llx", &a, &b, perms, &off) != 4 || perms[2] != 'x')
			continue;
		if (want >= a && want < b) {
			tm->start = a;
			tm->len = b - a;
			tm->pgoff = off;
			err = 0;
			break;
		}
	}
	fclose(fp);
	return err;
}

/* Run "argv0 a b" (cp, objcopy ... ) without a shell. */
static int run3(const char *argv0, const char *opt, const char *a, const char *b)
{
	char cmd[3 * PATH_MAX + 128];

	snprintf(cmd, sizeof(cmd), "%s %s '%s' '%s'", argv0, opt, a, b);
	return system(cmd);
}

/* The identity MMAP2 would give for path (generation where the fs has one). */
static int file_id_of(const char *path, struct file_id *id)
{
	struct stat st;
	long gen = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st)) {
		close(fd);
		return -1;
	}
	memset(id, 0, sizeof(*id));
	id->maj = major(st.st_dev);
	id->min = minor(st.st_dev);
	id->ino = st.st_ino;
	if (!ioctl(fd, FS_IOC_GETVERSION, &gen))
		id->gen = (uint32_t)gen;
	close(fd);
	return 0;
}

static size_t count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The symbol at stale_victim+1 of a file mapped as tm at path for pid. */
static const char *resolve_at(struct symbols *s, pid_t pid, const struct text_map *tm,
			      const char *path, const struct file_id *id, struct dso_info *di)
{
	struct symbol_info si;
	size_t i;

	symbols__mmap2(s, pid, tm->start, tm->len, tm->pgoff, path, id);
	symbols__resolve(s, pid, (uint64_t)(uintptr_t)stale_victim + 1, false, &si);
	memset(di, 0, sizeof(*di));
	for (i = 0; i < symbols__nr_dsos(s); i++) {
		struct dso_info d;

		symbols__dso(s, i, &d);
		if (d.loaded && si.dso && !strcmp(d.name, si.dso))
			*di = d;
	}
	return si.sym;
}

/* Fresh copies: path a (this binary) and its twin b with the name changed. */
static int make_pair(const char *a, const char *b)
{
	return run3("cp", "", exe, a) ||
	       run3("objcopy", "--redefine-sym stale_victim=stale_impostor", a, b);
}

static void test_replaced(const struct text_map *tm)
{
	char a[PATH_MAX], b[PATH_MAX], buf[256];
	struct file_id ida, idb;
	struct symbols *kept = symbols__new(), *late = symbols__new();
	struct dso_info di;
	size_t fds;

	snprintf(a, sizeof(a), "%s/prog", dir);
	snprintf(b, sizeof(b), "%s/prog.new", dir);
	if (!ok(!make_pair(a, b) && !file_id_of(a, &ida) && !file_id_of(b, &idb),
		"a copy of this binary and its twin with stale_victim renamed"))
		return;
	/* record reads the MMAP2 while the process lives: watch2 opens it */
	fds = count_fds();
	symbols__watch2(kept, FAKE_PID, tm->start, tm->len, a, &ida);
	symbols__watch2(kept, FAKE_PID + 1, tm->start, tm->len, a, &ida);
	symbols__watch2(kept, FAKE_PID + 2, tm->start + tm->len, tm->len, a, &ida);
	is_int(count_fds(), fds + 1, "three mappings of one file: one fd kept");
	is_int(symbols__nr_dsos(kept), 1, "... and one DSO");

	is_int(rename(b, a), 0, "the binary replaced (mv over it) while it runs");
	is_str(resolve_at(kept, FAKE_PID, tm, a, &ida, &di), "stale_victim",
	       "opened at first sight: the names of the file that ran");
	is_int(di.err, 0, "... loaded without error");

	/*
	 * Never seen alive, the path another inode now, the file that ran
	 * still open (its process runs): found by identity, on its
	 * filesystem (as root: open_by_handle_at).
	 */
	if (geteuid()) {
		skip_tests(1, "open_by_handle_at needs CAP_DAC_READ_SEARCH");
	} else {
		struct symbols *alive = symbols__new();

		is_str(resolve_at(alive, FAKE_PID, tm, a, &ida, &di), "stale_victim",
		       "not opened in time, the file that ran still in use: found by identity");
		symbols__free(alive);
	}
	/* and once nothing holds it: gone, never the replacement's names */
	symbols__free(kept);
	kept = NULL;
	is_str(resolve_at(late, FAKE_PID, tm, a, &ida, &di), NULL,
	       "not opened in time, the file that ran gone: unresolved, not the replacement's name");
	is_int(di.err, -ESTALE, "... err -ESTALE");
	ok(symbols__hint(&di, buf, sizeof(buf)) && strstr(buf, "replaced"), "... hint: %s",
	   symbols__hint(&di, buf, sizeof(buf)) ? buf : "(none)");

	/* the new file run later under the same path: its own DSO and names */
	is_str(resolve_at(late, FAKE_PID + 1, tm, a, &idb, &di), "stale_impostor",
	       "the replacement mapped later: its own names");
	is_int(di.err, 0, "... its own DSO, loaded");
	is_str(resolve_at(late, FAKE_PID, tm, a, &ida, &di), NULL,
	       "the first process still unresolved afterwards");

	/* the old behaviour, for contrast: no identity, whatever is there */
	{
		struct symbols *blind = symbols__new();

		is_str(resolve_at(blind, FAKE_PID, tm, a, NULL, &di), "stale_impostor",
		       "without an identity (plain MMAP) the path's current file is read");
		symbols__free(blind);
	}
	symbols__free(kept);
	symbols__free(late);
	is_int(count_fds(), fds, "fds closed with the context");
	unlink(a);
}

static void test_generation(const struct text_map *tm)
{
	char a[PATH_MAX];
	struct symbols *s = symbols__new();
	struct file_id id;
	struct dso_info di;

	snprintf(a, sizeof(a), "%s/gen", dir);
	if (!ok(!run3("cp", "", exe, a) && !file_id_of(a, &id), "a copy of this binary"))
		return;
	if (!id.gen) {
		skip_tests(3, "no inode generation on this filesystem");
		goto out;
	}
	is_str(resolve_at(s, FAKE_PID, tm, a, &id, &di), "stale_victim",
	       "right inode and generation: resolved");
	/* an inode number reused by a new file: same number, other generation */
	id.gen ^= 1;
	is_str(resolve_at(s, FAKE_PID + 1, tm, a, &id, &di), NULL,
	       "same inode number, another generation: unresolved");
	is_int(di.err, -ESTALE, "... err -ESTALE");
out:
	symbols__free(s);
	unlink(a);
}

static void test_deleted(const struct text_map *tm)
{
	char a[PATH_MAX], del[PATH_MAX + 16];
	struct symbols *s = symbols__new(), *t = symbols__new();
	struct file_id id;
	struct dso_info di;
	struct stat st;
	void *map;
	int fd;

	snprintf(a, sizeof(a), "%s/del", dir);
	if (!ok(!run3("cp", "", exe, a) && !file_id_of(a, &id), "a copy of this binary"))
		return;
	symbols__watch2(s, FAKE_PID, tm->start, tm->len, a, &id);
	/* mapped here too, to reach it through map_files once it is gone */
	fd = open(a, O_RDONLY | O_CLOEXEC);
	map = fd >= 0 && !fstat(fd, &st) ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
					       fd, 0) : MAP_FAILED;
	if (fd >= 0)
		close(fd);
	is_int(unlink(a), 0, "the binary removed while it runs");
	is_str(resolve_at(s, FAKE_PID, tm, a, &id, &di), "stale_victim",
	       "opened at first sight: still named after rm");

	/* an MMAP2 naming "path (deleted)": only the mapping itself can serve */
	snprintf(del, sizeof(del), "%s (deleted)", a);
	if (map == MAP_FAILED || geteuid()) {
		skip_tests(1, "/proc/PID/map_files needs CAP_SYS_ADMIN (or mmap failed)");
	} else {
		struct symbols *u = symbols__new();

		uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);

		/* MMAP2's len is the mapping's: whole pages */
		symbols__watch2(u, getpid(), (uint64_t)(uintptr_t)map,
				((uint64_t)st.st_size + pg - 1) / pg * pg, del, &id);
		is_str(resolve_at(u, FAKE_PID, tm, del, &id, &di), "stale_victim",
		       "deleted before first sight: read through /proc/PID/map_files");
		symbols__free(u);
	}
	{
		struct symbols *u = symbols__new();

		is_str(resolve_at(u, FAKE_PID, tm, del, &id, &di), NULL,
		       "\"(deleted)\" never opened: unresolved");
		is_int(di.err, -ESTALE, "... err -ESTALE");
		symbols__free(u);
	}
	if (map != MAP_FAILED)
		munmap(map, (size_t)st.st_size);
	symbols__free(s);
	/* nothing holds the removed file any more: not even its identity reaches it */
	is_str(resolve_at(t, FAKE_PID, tm, a, &id, &di), NULL, "not opened in time: unresolved");
	is_int(di.err, -ENOENT, "... err -ENOENT: file gone");
	symbols__free(t);
}

/*
 * The bound on kept fds (a quarter of RLIMIT_NOFILE): with a limit of 48,
 * 12 files keep at most 12 fds, and files past the bound, read at once,
 * still give the names that ran after all were replaced.
 */
static void test_fd_bound(const struct text_map *tm)
{
	enum { NR = 16 };
	char a[NR][PATH_MAX], b[PATH_MAX];
	struct file_id id[NR];
	struct rlimit old, low;
	struct symbols *s;
	struct dso_info di;
	size_t fds, i, named = 0;

	snprintf(b, sizeof(b), "%s/twin", dir);
	for (i = 0; i < NR; i++) {
		snprintf(a[i], sizeof(a[i]), "%s/bound%zu", dir, i);
		if (run3("cp", "", exe, a[i]) || file_id_of(a[i], &id[i]))
			break;
	}
	if (!ok(i == NR && !run3("objcopy", "--redefine-sym stale_victim=stale_impostor", exe, b) &&
		!getrlimit(RLIMIT_NOFILE, &old), "%d copies of this binary and a twin", NR))
		return;
	low = old;
	low.rlim_cur = 48;
	setrlimit(RLIMIT_NOFILE, &low);
	s = symbols__new();
	setrlimit(RLIMIT_NOFILE, &old);
	fds = count_fds();
	for (i = 0; i < NR; i++)
		symbols__watch2(s, FAKE_PID + (pid_t)i, tm->start, tm->len, a[i], &id[i]);
	is_int(count_fds() - fds, 12, "fds kept: 12 (48 / 4), not one per file");
	for (i = 0; i < NR; i++) {
		char cmd[PATH_MAX];

		snprintf(cmd, sizeof(cmd), "%s/bound%zu.new", dir, i);
		if (!run3("cp", "", b, cmd))
			rename(cmd, a[i]);
	}
	for (i = 0; i < NR; i++) {
		const char *sym = resolve_at(s, FAKE_PID + (pid_t)i, tm, a[i], &id[i], &di);

		named += sym && !strcmp(sym, "stale_victim");
	}
	is_int(named, NR, "all files replaced: every one still named after the file that ran");
	symbols__free(s);
	for (i = 0; i < NR; i++)
		unlink(a[i]);
	unlink(b);
}

/*
 * A chroot's or a gone container's file: the path in the record names
 * nothing on the host, or another file (here the twin), and the process
 * is gone, so neither /proc/PID/root nor map_files reach it; the file
 * itself still exists elsewhere.  Found by identity (open_by_handle_at)
 * it gives its own names; once removed, the mapping is unresolved and
 * the hint says its process exited before it was read.
 */
static void test_moved(const struct text_map *tm)
{
	char a[PATH_MAX], b[PATH_MAX], buf[256];
	struct symbols *s = symbols__new();
	struct file_id id;
	struct dso_info di;

	snprintf(a, sizeof(a), "%s/moved", dir);
	snprintf(b, sizeof(b), "%s/decoy", dir);
	if (!ok(!make_pair(a, b) && !file_id_of(a, &id), "a copy of this binary and its twin"))
		goto out;
	if (geteuid()) {
		skip_tests(6, "open_by_handle_at needs CAP_DAC_READ_SEARCH");
		goto out;
	}
	symbols__watch2(s, FAKE_PID, tm->start, tm->len, "/nonexistent/bin/moved", &id);
	is_str(resolve_at(s, FAKE_PID, tm, "/nonexistent/bin/moved", &id, &di), "stale_victim",
	       "a path the host does not have, its process gone: found by identity");
	is_int(di.err, 0, "... loaded");
	symbols__watch2(s, FAKE_PID + 1, tm->start, tm->len, b, &id);
	is_str(resolve_at(s, FAKE_PID + 1, tm, b, &id, &di), "stale_victim",
	       "a path holding another file (the twin): the mapped file's names, not the twin's");
	symbols__free(s);

	s = symbols__new();
	unlink(a);
	symbols__watch2(s, FAKE_PID, tm->start, tm->len, "/nonexistent/bin/moved", &id);
	is_str(resolve_at(s, FAKE_PID, tm, "/nonexistent/bin/moved", &id, &di), NULL,
	       "the file removed too: unresolved");
	ok(di.missed, "... the DSO says its process exited before the mapping was read");
	ok(symbols__hint(&di, buf, sizeof(buf)) && strstr(buf, "process exited before"),
	   "... and so does its hint: %s", buf);
out:
	symbols__free(s);
	unlink(a);
	unlink(b);
}

int main(void)
{
	struct text_map tm;
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (!ok(n > 0 && mkdtemp(dir) && !find_text(&tm), "this binary and its text mapping"))
		return done_testing();
	exe[n] = '\0';
	test_replaced(&tm);
	test_generation(&tm);
	test_deleted(&tm);
	test_fd_bound(&tm);
	test_moved(&tm);
	rmdir(dir);
	return done_testing();
}
