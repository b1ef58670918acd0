/*
 * The sampler against the real perf_event_open: a forked child burns CPU
 * in a known noinline function, loops on a syscall and faults pages; its
 * profile must show that function, kernel frames, its comm, no loss at a
 * low frequency, and the default event's cpu-clock fallback where the
 * machine has no PMU.  Synthetic ring-buffer data checks what end_run makes
 * of chains.  `test-sampler --bench [M]` (by hand) measures ingest:
 * M million replayed samples through parse, comm, hash and count.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "mmprof/chaintake.h"
#include "mmprof/datafile.h"
#include "mmprof/options.h"
#include "mmprof/sampler.h"
#include "mmprof/stackagg.h"
#include "mmprof/symbols.h"
#include "perf-records.h"
#include "tap.h"

static volatile uint64_t sink;

__attribute__((noinline, noclone)) static void burn_user(int ms)
{
	struct timespec t0, t;
	uint64_t x = 1;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		int i;

		for (i = 0; i < 100000; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		sink = x;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

__attribute__((noinline, noclone)) static void syscall_loop(int ms)
{
	static char buf[1 << 16];
	struct timespec t0, t;
	int fd = open("/dev/zero", O_RDONLY);

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		int i;

		for (i = 0; i < 50; i++)
			if (read(fd, buf, sizeof(buf)) < 0)
				break;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	close(fd);
}

__attribute__((noinline, noclone)) static void fault_loop(int rounds)
{
	int r;

	for (r = 0; r < rounds; r++) {
		size_t len = 4 << 20, off;
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return;
		for (off = 0; off < len; off += 4096)
			p[off] = 1;
		munmap(p, len);
	}
}

/*
 * Fork a child that names itself, says so, waits for the go byte, then
 * works and exits.  The parent waits for the name: a PR_SET_NAME between
 * the sampler's read of /proc/PID/comm and its enable makes no comm event
 * (a disabled event gets no side-band), so the samples would carry the
 * parent's name (stop 35's CI: 0 of 901 under load).
 */
static pid_t spawn(int *go_fd)
{
	int fds[2], named[2];
	pid_t pid;
	char c;

	if (pipe(fds))
		return -1;
	if (pipe(named)) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		close(fds[1]);
		close(named[0]);
		prctl(PR_SET_NAME, "burner");
		if (write(named[1], "n", 1) != 1)
			_exit(3);
		close(named[1]);
		if (read(fds[0], &c, 1) != 1)
			_exit(3);
		burn_user(300);
		syscall_loop(300);
		fault_loop(20);
		_exit(0);
	}
	close(fds[0]);
	close(named[1]);
	if (pid > 0 && read(named[0], &c, 1) != 1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(named[0]);
	if (pid < 0) {
		close(fds[1]);
		return -1;
	}
	*go_fd = fds[1];
	return pid;
}

/* One run on a fresh child: open, enable, release, drain until it exits. */
static int record_child(struct sampler *s, struct profile *p, uint32_t run, struct run *r,
			struct errmsg *e)
{
	struct record_target t = { 0 };
	int go, status, err;
	pid_t pid = spawn(&go);

	if (pid < 0)
		return -errno;
	t.pids = &pid;
	t.nr_pids = 1;
	err = sampler__open(s, &t, e);
	if (!err) {
		sampler__enable(s);
		if (write(go, "g", 1) != 1)
			err = -EIO;
		while (!err && waitpid(pid, &status, WNOHANG) == 0) {
			sampler__poll(s, 50);
			sampler__drain(s);
		}
		sampler__close(s);
	} else {
		kill(pid, SIGKILL);
	}
	close(go);
	waitpid(pid, &status, 0);
	if (!err)
		err = sampler__end_run(s, p, run, r);
	return err;
}

static bool pmu_absent(int *why)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_HARDWARE,
				     .config = PERF_COUNT_HW_CPU_CYCLES, .disabled = 1 };
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);

	if (fd >= 0) {
		close(fd);
		return false;
	}
	*why = errno;
	return errno == ENOENT || errno == EOPNOTSUPP || errno == ENODEV || errno == ENXIO;
}

/* Does any count of event ev in run have a frame named sym (kernel or not)? */
static uint64_t samples_with(const struct profile *p, uint32_t run, uint32_t ev,
			     const char *sym, int kernel)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];
		uint32_t node = c->node;

		if (c->run != run || c->event != ev)
			continue;
		for (; node != PROFILE_ROOT; node = p->nodes[node].parent) {
			const struct frame *f = &p->frames[p->nodes[node].frame];
			const char *name = profile__str(p, f->sym);

			if ((kernel < 0 || f->kernel == kernel) &&
			    (!sym || (name && !strcmp(name, sym)))) {
				n += c->samples;
				break;
			}
		}
	}
	return n;
}

/* Print the heaviest stacks of a run (with MMPROF_TEST_VERBOSE set). */
static void dump(const struct profile *p, uint32_t run)
{
	size_t i;

	if (!getenv("MMPROF_TEST_VERBOSE"))
		return;
	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];
		uint32_t node = c->node;

		if (c->run != run || c->samples < 5)
			continue;
		printf("# ev %u %s x%llu:", c->event, profile__str(p, c->comm),
		       (unsigned long long)c->samples);
		for (; node != PROFILE_ROOT; node = p->nodes[node].parent) {
			const struct frame *f = &p->frames[p->nodes[node].frame];

			printf(" %s%s", f->kernel ? "k:" : "", profile__frame_sym(p, p->nodes[node].frame));
		}
		printf("\n");
	}
}

/* Samples of run whose stack has kernel frame ksym and, further out, user frame usym. */
static uint64_t samples_crossing(const struct profile *p, uint32_t run, const char *ksym,
				 const char *usym)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < p->nr_counts; i++) {
		uint32_t node = p->counts[i].node;
		bool k = false;

		if (p->counts[i].run != run)
			continue;
		for (; node != PROFILE_ROOT; node = p->nodes[node].parent) {
			const struct frame *f = &p->frames[p->nodes[node].frame];
			const char *name = profile__str(p, f->sym);

			if (name && f->kernel && !strcmp(name, ksym))
				k = true;
			if (name && k && !f->kernel && !strcmp(name, usym)) {
				n += p->counts[i].samples;
				break;
			}
		}
	}
	return n;
}

static void test_default_event(struct symbols *syms)
{
	struct sampler_opts o = { .freq = 1000 };
	struct errmsg e = { "" };
	struct profile *p = profile__new();
	struct sampler *s = sampler__new(&o, syms, &e);
	struct run r = { 0 };
	int why = 0, err;
	bool absent = pmu_absent(&why);
	uint64_t total = 0, comm_ok = 0;
	size_t i;

	err = record_child(s, p, 0, &r, &e);
	if (!ok(err == 0, "default event: a forked child is sampled"))
		printf("#   %s\n", e.msg);
	dump(p, 0);
	sampler__add_events(s, p);
	is_int(p->nr_events, 1, "one event added");
	if (absent) {
		is_str(profile__str(p, p->events[0].name), "cpu-clock",
		       "no PMU here: the default falls back to cpu-clock");
		ok(sampler__note(s) && strstr(sampler__note(s), "no hardware PMU (cycles: ") &&
		   strstr(sampler__note(s), "sampling cpu-clock instead"),
		   "and says so: %s", sampler__note(s) ? sampler__note(s) : "(no note)");
	} else {
		ok(!strncmp(profile__str(p, p->events[0].name), "cycles", 6) && !sampler__note(s),
		   "a PMU here: cycles opened (%s)", profile__str(p, p->events[0].name));
		skip_tests(1, "a hardware PMU here: no fallback to announce");
	}
	is_str(profile__str(p, p->events[0].asked), "cycles", "asked for cycles");
	ok(p->events[0].freq == 1 && p->events[0].sample == 1000, "frequency recorded");

	ok(r.samples > 100, "run has samples (%llu)", (unsigned long long)r.samples);
	is_int(r.lost, 0, "nothing lost at 1 kHz");
	for (i = 0; i < p->nr_counts; i++) {
		total += p->counts[i].samples;
		if (!strcmp(profile__str(p, p->counts[i].comm), "burner"))
			comm_ok += p->counts[i].samples;
	}
	is_int(total, r.samples, "counts add up to the run's samples");
	ok(comm_ok * 10 >= total * 9, "the child's comm is on its samples (%llu of %llu)",
	   (unsigned long long)comm_ok, (unsigned long long)total);
	{
		uint64_t burn = samples_with(p, 0, 0, "burn_user", 0);
		uint64_t kern = samples_with(p, 0, 0, NULL, 1);
		uint64_t sysread = samples_crossing(p, 0, "ksys_read", "record_child");

		ok(burn * 5 >= total, "burn_user is on the user callchains of %llu of %llu samples",
		   (unsigned long long)burn, (unsigned long long)total);
		ok(kern * 5 >= total, "kernel frames in %llu samples", (unsigned long long)kern);
		ok(sysread > 0, "kernel read path continues into the user caller in %llu samples",
		   (unsigned long long)sysread);
		ok(samples_with(p, 0, 0, "ksys_read", 1) + samples_with(p, 0, 0, "vfs_read", 1) > 0,
		   "the read syscall's kernel path resolved by name");
	}
	/* each stack: the leaf frame appears once (the kernel's IP is not doubled) */
	{
		size_t dup = 0;

		for (i = 0; i < p->nr_counts; i++) {
			uint32_t leaf = p->counts[i].node, parent = p->nodes[leaf].parent;

			if (parent != PROFILE_ROOT &&
			    p->frames[p->nodes[leaf].frame].addr == p->frames[p->nodes[parent].frame].addr)
				dup++;
		}
		is_int(dup, 0, "no stack repeats its leaf address");
	}

	/* a second run reuses the choice and keeps runs apart */
	memset(&r, 0, sizeof(r));
	err = record_child(s, p, 1, &r, &e);
	ok(err == 0 && r.samples > 100, "second run sampled (%llu)", (unsigned long long)r.samples);
	ok(samples_with(p, 1, 0, "burn_user", 0) > 0 && samples_with(p, 0, 0, "burn_user", 0) > 0,
	   "both runs have their own counts");
	sampler__free(s);
	profile__free(p);
}

static void test_two_events(struct symbols *syms)
{
	struct strlist ev = { 0 };
	struct sampler_opts o = { .freq = 1000 };
	struct errmsg e = { "" };
	struct profile *p = profile__new();
	struct sampler *s;
	struct run r = { 0 };
	int err;

	strlist__add(&ev, "cpu-clock");
	strlist__add(&ev, "exceptions:page_fault_user");
	o.events = &ev;
	/*
	 * Every fault is a sample: 20,480 of some 180 bytes in the child's
	 * few ms of faulting, 3.6 MB, where the default ring holds 1 MiB a
	 * CPU.  Kept whole only by a reader that drains it several times in
	 * those ms, which a loaded machine does not grant: this test's process
	 * stopped 0.4 s in every 0.44 s kept 5,894 and lost the rest.  8 MiB
	 * a CPU holds them all, so "nothing lost" is mmprof's, not the load's.
	 */
	o.mmap_pages = 2048;
	s = sampler__new(&o, syms, &e);
	if (!ok(s != NULL, "two events accepted"))
		printf("#   %s\n", e.msg);
	err = record_child(s, p, 0, &r, &e);
	if (!ok(err == 0, "cpu-clock and a tracepoint sampled together"))
		printf("#   %s\n", e.msg);
	dump(p, 0);
	sampler__add_events(s, p);
	is_int(p->nr_events, 2, "two events added");
	is_str(profile__str(p, p->events[1].name), "exceptions:page_fault_user", "tracepoint name");
	ok(p->events[1].freq == 0 && p->events[1].sample == 1, "tracepoint samples every hit");
	ok(samples_with(p, 0, 0, "burn_user", 0) > 0, "cpu-clock samples map to event 0");
	/* 20 rounds x 1024 pages fault at least 20000 times, each one a sample */
	ok(samples_with(p, 0, 1, "fault_loop", 0) >= 20000,
	   "page_fault_user samples map to event 1, in fault_loop (%llu)",
	   (unsigned long long)samples_with(p, 0, 1, "fault_loop", 0));
	/* a few are copy-on-write faults elsewhere after fork; nearly all are fault_loop's */
	ok(samples_with(p, 0, 1, "fault_loop", 0) * 10 >= samples_with(p, 0, 1, NULL, -1) * 9,
	   "nearly all of them (%llu of %llu)",
	   (unsigned long long)samples_with(p, 0, 1, "fault_loop", 0),
	   (unsigned long long)samples_with(p, 0, 1, NULL, -1));
	ok(samples_with(p, 0, 1, "burn_user", 0) < 100, "few or none in burn_user (%llu)",
	   (unsigned long long)samples_with(p, 0, 1, "burn_user", 0));
	is_int(r.lost, 0, "nothing lost");
	sampler__free(s);
	profile__free(p);
	strlist__release(&ev);
}

static void test_errors(struct symbols *syms)
{
	struct strlist ev = { 0 };
	struct sampler_opts o = { .freq = 1000 };
	struct errmsg e = { "" };
	struct sampler *s;
	struct record_target t = { 0 };
	pid_t gone;
	int why = 0, err;

	strlist__add(&ev, "nosuch");
	o.events = &ev;
	s = sampler__new(&o, syms, &e);
	ok(!s && strstr(e.msg, "unknown event 'nosuch'"), "unknown -e refused at new: %s", e.msg);
	strlist__release(&ev);

	o.events = NULL;
	o.mmap_pages = 3;
	ok(!sampler__new(&o, syms, &e), "mmap pages not a power of 2 refused: %s", e.msg);
	o.mmap_pages = 0;

	/* a process that is gone */
	gone = fork();
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	s = sampler__new(&o, syms, &e);
	t.pids = &gone;
	t.nr_pids = 1;
	err = sampler__open(s, &t, &e);
	ok(err == -ESRCH && strstr(e.msg, "no such process"), "dead pid: %s", e.msg);
	sampler__free(s);

	if (pmu_absent(&why)) {
		pid_t self = getpid();

		strlist__add(&ev, "cycles");
		o.events = &ev;
		s = sampler__new(&o, syms, &e);
		t.pids = &self;
		err = sampler__open(s, &t, &e);
		ok(err == -why && strstr(e.msg, "cannot open event 'cycles'") &&
		   strstr(e.msg, strerror(why)), "explicit cycles without a PMU is an error: %s",
		   e.msg);
		ok(sampler__note(s) == NULL, "and no silent fallback");
		sampler__free(s);
		strlist__release(&ev);
	} else {
		skip_tests(2, "a hardware PMU here: explicit cycles is no error");
	}
}

/* Open s on every CPU and read it while this process burns 50 ms, rounds times. */
static void record_system_wide(struct sampler *s, int rounds)
{
	struct record_target t = { .system_wide = true };
	struct errmsg e = { "" };
	int i;

	if (!ok(sampler__open(s, &t, &e) == 0, "system-wide open"))
		printf("#   %s\n", e.msg);
	sampler__enable(s);
	for (i = 0; i < rounds; i++) {
		burn_user(50);
		sampler__poll(s, 10);
		sampler__drain(s);
	}
	sampler__close(s);
}

static void test_system_wide(struct symbols *syms)
{
	struct sampler_opts o = { .freq = 1000 };
	struct profile *p = profile__new();
	struct sampler *s = sampler__new(&o, syms, NULL);
	struct run r = { 0 };

	record_system_wide(s, 4);
	sampler__add_events(s, p);
	sampler__end_run(s, p, 0, &r);
	ok(r.samples >= 150, "system-wide samples (%llu)", (unsigned long long)r.samples);
	ok(samples_with(p, 0, 0, "burn_user", 0) > 0, "this process's function seen system-wide");
	sampler__free(s);
	profile__free(p);
}

/* Append a sample record {IP, TID, TIME, CPU, PERIOD, CALLCHAIN} of period period. */
static size_t put_sample_period(uint64_t *buf, uint64_t ip, uint32_t pid, uint64_t time,
				const uint64_t *chain, uint64_t nr, uint16_t misc, uint64_t period)
{
	struct perf_event_header *h = (void *)buf;
	uint32_t pt[2] = { pid, pid };
	uint64_t *p = buf + 1;

	*p++ = ip;
	memcpy(p++, pt, 8);
	*p++ = time;
	*p++ = 0;
	*p++ = period;
	*p++ = nr;
	if (nr)
		memcpy(p, chain, nr * 8);
	p += nr;
	h->type = PERF_RECORD_SAMPLE;
	h->misc = misc;
	h->size = (uint16_t)((char *)p - (char *)buf);
	return h->size / 8;
}

static size_t put_sample(uint64_t *buf, uint64_t ip, uint32_t pid, uint64_t time,
			 const uint64_t *chain, uint64_t nr, uint16_t misc)
{
	return put_sample_period(buf, ip, pid, time, chain, nr, misc, 1000);
}

static size_t put_comm(uint64_t *buf, uint32_t pid, const char *comm, uint64_t time)
{
	struct perf_event_header *h = (void *)buf;
	uint32_t pt[2] = { pid, pid };

	memset(buf, 0, 8 * 8);
	memcpy(buf + 1, pt, 8);
	snprintf((char *)(buf + 2), 16, "%s", comm);
	memcpy(buf + 4, pt, 8);	/* sample_id_all: TID TIME CPU */
	buf[5] = time;
	h->type = PERF_RECORD_COMM;
	h->size = 7 * 8;
	return 7;
}

/*
 * Per-CPU buffers are read one after another, so an exec's COMM can be
 * read after the MMAP2 of the new image that followed it in time.  The
 * side-band must be applied in time order, or the exec wipes the map.
 */
static void test_sideband_order(struct symbols *syms)
{
	struct sampler_opts o = { .freq = 1000 };
	struct errmsg e = { "" };
	struct sampler *s = sampler__new(&o, syms, &e);
	struct profile *p = profile__new();
	static uint64_t buf[1024];
	uint64_t start, end = 0, pgoff = 0, ip = (uint64_t)(uintptr_t)burn_user + 4;
	const uint64_t chain[] = { PERF_CONTEXT_USER, ip };
	char exe[256] = "";
	struct run r = { 0 };
	size_t n = 0;
	const char *sym;

	start = own_text_map(ip, &end, &pgoff, exe, sizeof(exe));
	ok(start != 0, "found this test's text mapping");
	n += put_mmap2(buf + n, 4242, start, end - start, pgoff, exe, 200);
	n += put_sample(buf + n, ip, 4242, 300, chain, 2, PERF_RECORD_MISC_USER);
	n += put_comm(buf + n, 4242, "exec'd", 100);
	((struct perf_event_header *)(buf + n - 7))->misc |= PERF_RECORD_MISC_COMM_EXEC;
	is_int(sampler__replay(s, buf, n * 8), 1, "one sample replayed");
	sampler__add_events(s, p);
	sampler__end_run(s, p, 0, &r);
	sym = p->nr_frames ? profile__str(p, p->frames[0].sym) : NULL;
	is_str(sym, "burn_user", "the map read before an earlier exec COMM still resolves");
	profile__free(p);
	sampler__free(s);
}

/* The comm of the count whose leaf frame is at addr, or NULL. */
static const char *comm_at(const struct profile *p, uint64_t addr)
{
	size_t i;

	for (i = 0; i < p->nr_counts; i++)
		if (p->frames[p->nodes[p->counts[i].node].frame].addr == addr)
			return profile__str(p, p->counts[i].comm);
	return NULL;
}

/* FORK or EXIT (same layout): pid, ppid, tid, ptid, time, then sample_id_all. */
static size_t put_task(uint64_t *buf, uint32_t type, uint32_t pid, uint32_t ppid, uint64_t time)
{
	struct perf_event_header *h = (void *)buf;
	uint32_t pp[2] = { pid, ppid }, pt[2] = { pid, pid };

	memset(buf, 0, 7 * 8);
	memcpy(buf + 1, pp, 8);
	memcpy(buf + 2, pp, 8);	/* tid = pid, ptid = ppid: a process, not a thread */
	buf[3] = time;
	memcpy(buf + 4, pt, 8);	/* sample_id_all: TID TIME CPU */
	buf[5] = time;
	h->type = (uint16_t)type;
	h->size = 7 * 8;
	return 7;
}

/*
 * A pipeline: sh (pid 500) forks 501, which execs sort on another CPU;
 * that CPU's buffer is read first, so the exec's COMM comes before the
 * FORK that gave 501 its parent's name.  In time order the FORK applies
 * first: samples of 501 after its exec are sort's, one between the fork
 * and the exec is sh's (before: every sample read after the FORK was
 * sh's, as 'record -- sh -c "... | sort | ..."' showed).
 */
static void test_fork_comm_order(struct symbols *syms)
{
	struct sampler_opts o = { .freq = 1000 };
	struct sampler *s = sampler__new(&o, syms, NULL);
	struct profile *p = profile__new();
	static uint64_t buf[1024];
	const uint64_t a1 = 0x10000100, a2 = 0x10000200, a3 = 0x10000300;
	const uint64_t c1[] = { PERF_CONTEXT_USER, a1 }, c2[] = { PERF_CONTEXT_USER, a2 };
	const uint64_t c3[] = { PERF_CONTEXT_USER, a3 };
	struct run r = { 0 };
	size_t n = 0;

	n += put_comm(buf + n, 500, "sh", 10);
	n += put_comm(buf + n, 501, "sort", 200);	/* CPU 0: the exec */
	((struct perf_event_header *)(buf + n - 7))->misc |= PERF_RECORD_MISC_COMM_EXEC;
	n += put_sample(buf + n, a1, 501, 300, c1, 2, PERF_RECORD_MISC_USER);
	n += put_task(buf + n, PERF_RECORD_FORK, 501, 500, 100);	/* CPU 1: the fork */
	n += put_sample(buf + n, a2, 501, 150, c2, 2, PERF_RECORD_MISC_USER);
	n += put_sample(buf + n, a3, 501, 310, c3, 2, PERF_RECORD_MISC_USER);
	is_int(sampler__replay(s, buf, n * 8), 3, "three samples of the child replayed");
	sampler__add_events(s, p);
	sampler__end_run(s, p, 0, &r);
	is_str(comm_at(p, a1), "sort", "a sample after the exec, read before the FORK: sort");
	is_str(comm_at(p, a3), "sort", "a sample after the exec, read after the FORK: sort");
	is_str(comm_at(p, a2), "sh", "a sample between the fork and the exec: its parent's name");
	profile__free(p);
	sampler__free(s);
}

/*
 * A wrapper computes, then execs the real program in the same pid.  Its
 * samples were resolved at the run's end through the maps after the
 * exec, which do not cover the wrapper's code: [unmapped].  They must
 * resolve through the maps of their own time, and the new image's
 * through its own.
 */
static void test_exec_keeps_maps(struct symbols *syms)
{
	struct sampler_opts o = { .freq = 1000 };
	struct sampler *s = sampler__new(&o, syms, NULL);
	struct profile *p = profile__new();
	static uint64_t buf[1024];
	uint64_t start, end = 0, pgoff = 0, ip = (uint64_t)(uintptr_t)burn_user + 4;
	const uint64_t shift = 0x100000000ULL, ip2 = ip + shift;
	const uint64_t c1[] = { PERF_CONTEXT_USER, ip }, c2[] = { PERF_CONTEXT_USER, ip2 };
	char exe[256] = "";
	struct run r = { 0 };
	size_t n = 0, i, pids = 0;

	start = own_text_map(ip, &end, &pgoff, exe, sizeof(exe));
	n += put_comm(buf + n, 4300, "wrapper", 90);
	((struct perf_event_header *)(buf + n - 7))->misc |= PERF_RECORD_MISC_COMM_EXEC;
	n += put_mmap2(buf + n, 4300, start, end - start, pgoff, exe, 100);
	n += put_sample(buf + n, ip, 4300, 200, c1, 2, PERF_RECORD_MISC_USER);
	n += put_comm(buf + n, 4300, "spin", 300);
	((struct perf_event_header *)(buf + n - 7))->misc |= PERF_RECORD_MISC_COMM_EXEC;
	n += put_mmap2(buf + n, 4300, start + shift, end - start, pgoff, exe, 310);
	n += put_sample(buf + n, ip2, 4300, 400, c2, 2, PERF_RECORD_MISC_USER);
	is_int(sampler__replay(s, buf, n * 8), 2, "two samples replayed");
	sampler__add_events(s, p);
	sampler__end_run(s, p, 0, &r);
	is_int(samples_with(p, 0, 0, "burn_user", 0), 2,
	       "the sample before the exec resolves through the maps it was taken in");
	is_str(comm_at(p, ip), "wrapper", "it keeps the wrapper's name");
	is_str(comm_at(p, ip2), "spin", "the one after the exec is the new image's");
	for (i = 0; i < p->nr_counts; i++)
		pids += p->counts[i].pid == 4300;
	is_int(pids, 2, "both counts are of pid 4300");
	profile__free(p);
	sampler__free(s);
}

/*
 * A fork-heavy system-wide run (stress-ng, a build) sees processes come
 * and go all the time.  Side-band records must be applied as the run goes,
 * not held to its end: 100 000 short-lived processes, each fork, exec
 * (its COMM read after its MMAP2, as from another CPU), mmap, one sample
 * and exit, replayed a thousand processes per drain round.  The records
 * held stay about one round's worth, and every sample still resolves.
 */
static void test_sideband_bounded(struct symbols *syms)
{
	enum { NPROC = 100000, PER_ROUND = 1000 };
	struct sampler_opts o = { .freq = 1000 };
	struct sampler *s = sampler__new(&o, syms, NULL);
	struct profile *p = profile__new();
	uint64_t start, end = 0, pgoff = 0, ip = (uint64_t)(uintptr_t)burn_user + 4;
	const uint64_t chain[] = { PERF_CONTEXT_USER, ip };
	uint64_t *buf = malloc((size_t)PER_ROUND * 64 * 8);
	char exe[256] = "";
	size_t held = 0, i, n = 0, samples = 0;
	struct run r = { 0 };

	start = own_text_map(ip, &end, &pgoff, exe, sizeof(exe));
	for (i = 0; i < NPROC; i++) {
		uint32_t pid = 200000 + (uint32_t)i;
		uint64_t t = 1000 + (uint64_t)i * 10;

		n += put_task(buf + n, PERF_RECORD_FORK, pid, 1, t);
		n += put_mmap2(buf + n, pid, start, end - start, pgoff, exe, t + 2);
		n += put_comm(buf + n, pid, "short", t + 1);
		((struct perf_event_header *)(buf + n - 7))->misc |= PERF_RECORD_MISC_COMM_EXEC;
		n += put_sample(buf + n, ip, pid, t + 3, chain, 2, PERF_RECORD_MISC_USER);
		n += put_task(buf + n, PERF_RECORD_EXIT, pid, 1, t + 4);
		if ((i + 1) % PER_ROUND == 0) {
			samples += (size_t)sampler__replay(s, buf, n * 8);
			if (sampler__sideband_held(s) > held)
				held = sampler__sideband_held(s);
			n = 0;
		}
	}
	is_int(samples, NPROC, "every sample of 100 000 short-lived processes read");
	ok(held <= 2 * 4 * PER_ROUND, "side-band held at most two rounds' worth (peak %zu records "
	   "of %d)", held, 4 * NPROC);
	sampler__add_events(s, p);
	sampler__end_run(s, p, 0, &r);
	is_int(samples_with(p, 0, 0, "burn_user", 0), NPROC,
	       "every sample resolves through maps applied during the run");
	is_int(sampler__sideband_held(s), 0, "nothing held after the run ends");
	profile__free(p);
	sampler__free(s);
	free(buf);
}

static void test_replay(struct symbols *syms)
{
	struct sampler_opts o = { .freq = 1000 };
	struct errmsg e = { "" };
	struct sampler *s = sampler__new(&o, syms, &e);
	struct profile *p = profile__new();
	static uint64_t buf[4096];
	const uint64_t k1 = 0xffffffffdead0010ULL, u1 = 0x10000040, u2 = 0x10000080;
	const uint64_t c_full[] = { PERF_CONTEXT_KERNEL, k1, PERF_CONTEXT_USER, u1, u2 };
	const uint64_t c_noip[] = { PERF_CONTEXT_USER, u2 };
	struct run r = { 0 };
	size_t n = 0, i;
	uint32_t leaf;
	int got;

	n += put_comm(buf + n, 7, "early", 100);
	n += put_sample(buf + n, k1, 7, 50, c_full, 5, PERF_RECORD_MISC_KERNEL);  /* before the comm */
	n += put_sample(buf + n, k1, 7, 150, c_full, 5, PERF_RECORD_MISC_KERNEL);
	n += put_sample(buf + n, k1, 7, 160, c_full, 5, PERF_RECORD_MISC_KERNEL);
	n += put_sample(buf + n, u1, 7, 170, c_noip, 2, PERF_RECORD_MISC_USER);   /* ip missing */
	n += put_sample(buf + n, u1, 7, 180, NULL, 0, PERF_RECORD_MISC_USER);      /* no chain */
	got = sampler__replay(s, buf, n * 8);
	is_int(got, 5, "replay reads five samples");
	is_int(sampler__replay(s, buf, 12), -EINVAL, "a cut record is refused");
	sampler__add_events(s, p);
	sampler__end_run(s, p, 0, &r);
	is_int(r.samples, 5, "run samples");
	/* counts: (comm ":7", full) 1, (early, full) 2, (early, [u1 u2]) 1, (early, [u1]) 1 */
	is_int(p->nr_counts, 4, "four distinct (comm, stack) cells");
	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];
		const char *comm = profile__str(p, c->comm);

		leaf = c->node;
		if (p->nodes[leaf].depth == 3) {
			const struct frame *f = &p->frames[p->nodes[leaf].frame];

			ok(f->addr == k1 && f->kernel && f->sym == 0,
			   "leaf is the kernel IP, unresolved: raw address kept, sym 0");
			ok(!strcmp(comm, c->samples == 2 ? "early" : ":7"),
			   "the comm in force at each sample's time (%s x%llu)", comm,
			   (unsigned long long)c->samples);
			ok(!p->frames[p->nodes[p->nodes[leaf].parent].frame].kernel &&
			   p->frames[p->nodes[p->nodes[leaf].parent].frame].addr == u1,
			   "then the user frames after the context marker");
			is_int(c->period, 1000 * c->samples, "period summed");
		} else if (p->nodes[leaf].depth == 2) {
			ok(p->frames[p->nodes[leaf].frame].addr == u1 &&
			   p->frames[p->nodes[p->nodes[leaf].parent].frame].addr == u2,
			   "a chain without the IP gets it in front, once");
		} else {
			ok(p->nodes[leaf].depth == 1 && p->frames[p->nodes[leaf].frame].addr == u1,
			   "no callchain: the IP alone");
		}
	}
	sampler__free(s);
	profile__free(p);
}

/*
 * One run of samples at user addresses addr[i] of period[i] (pid 7,
 * a chain of the address alone) replayed into p; how many were read.
 */
static int replay_user(struct symbols *syms, struct profile *p, const uint64_t *addr,
		       const uint64_t *period, size_t nr)
{
	struct sampler_opts o = { .freq = 1000 };
	struct errmsg e = { "" };
	struct sampler *s = sampler__new(&o, syms, &e);
	static uint64_t buf[1024];
	struct run r = { 0 };
	size_t n = 0, i;
	int got;

	for (i = 0; i < nr; i++) {
		const uint64_t c[] = { PERF_CONTEXT_USER, addr[i] };

		n += put_sample_period(buf + n, addr[i], 7, 100 + 10 * i, c, 2,
				       PERF_RECORD_MISC_USER, period[i]);
	}
	got = sampler__replay(s, buf, n * 8);
	sampler__add_events(s, p);
	sampler__end_run(s, p, 0, &r);
	sampler__free(s);
	return got;
}

/*
 * Periods near 2^64 on one stack (a wrapped difference, 2^63 twice):
 * the stack's sum saturates (stackagg.h) and the profile drops that cell
 * and counts it (repaired.count_over_2^63); it was kept as 2 samples of
 * period 0 (2^64 wrapped) with nothing said.  Another stack's cell stays.
 */
static void test_period_saturates(struct symbols *syms)
{
	const uint64_t addr[] = { 0x10000040, 0x10000040, 0x10000080 };
	const uint64_t period[] = { UINT64_C(1) << 63, UINT64_C(1) << 63, 250000 };
	struct profile *p = profile__new();
	char line[256];

	is_int(replay_user(syms, p, addr, period, 3), 3, "replay reads three samples");
	is_int(p->nr_counts, 1, "the saturated stack's cell is dropped, the other kept");
	ok(p->nr_counts == 1 && p->counts[0].period == 250000 && p->counts[0].samples == 1,
	   "the kept cell: 1 sample, period 250000");
	ok(profile__repairs(p, line, sizeof(line)) == 1, "one repair: %s", line);
	ok(profile__meta(p, "repaired.count_over_2^63") &&
	   !strcmp(profile__meta(p, "repaired.count_over_2^63"), "1"), "meta repaired.count_over_2^63 is 1");
	profile__free(p);
}

/*
 * datafile.h's rule for the frames of a file, record's as import's: a
 * profile already holding DATAFILE_TRIE_FRAMES frames takes no new one;
 * a new address is the [unknown] frame of its side, counted in meta
 * repaired.frame, its sample kept (record made every frame before).
 */
static void test_frames_bound(struct symbols *syms)
{
	const uint64_t addr[] = { 0x10000040, 0x10000080 }, period[] = { 1000, 1000 };
	struct profile *p = profile__new();
	size_t i, unknown = 0;
	uint64_t samples = 0;
	char line[256];

	for (i = 0; i < DATAFILE_TRIE_FRAMES; i++) {
		struct frame f = { .addr = 0x7f0000000000ull + i };

		profile__frame(p, &f);
	}
	is_int(replay_user(syms, p, addr, period, 2), 2, "frames' bound: two samples replayed");
	is_int(p->nr_frames, DATAFILE_TRIE_FRAMES + 1, "no frame past the bound but [unknown]");
	for (i = 0; i < p->nr_counts; i++) {
		const struct frame *f = &p->frames[p->nodes[p->counts[i].node].frame];

		samples += p->counts[i].samples;
		unknown += !f->addr && !f->sym && !f->dso;
	}
	ok(samples == 2 && unknown == p->nr_counts, "both samples kept, at the [unknown] frame");
	ok(profile__repairs(p, line, sizeof(line)) == 2, "two repairs: %s", line);
	ok(profile__meta(p, "repaired.frame") && !strcmp(profile__meta(p, "repaired.frame"), "2"),
	   "meta repaired.frame is 2");
	profile__free(p);
}

/* KSYMBOL: addr, len, type, flags, a 32-byte name, then sample_id_all. */
static size_t put_ksymbol(uint64_t *buf, uint64_t addr, uint32_t len, uint16_t flags,
			  const char *name, uint64_t time)
{
	struct perf_event_header *h = (void *)buf;
	uint32_t pt[2] = { 0, 0 };
	uint16_t tf[2] = { PERF_RECORD_KSYMBOL_TYPE_BPF, flags };

	memset(buf, 0, 10 * 8);
	buf[1] = addr;
	memcpy(buf + 2, &len, 4);
	memcpy((char *)(buf + 2) + 4, tf, 4);
	snprintf((char *)(buf + 3), 32, "%s", name);
	memcpy(buf + 7, pt, 8);	/* sample_id_all: TID TIME CPU */
	buf[8] = time;
	h->type = PERF_RECORD_KSYMBOL;
	h->size = 10 * 8;
	return 10;
}

/*
 * A BPF program loaded, sampled and unloaded during the run: its KSYMBOL
 * records name its whole range, still after the unregistration; a cut
 * record (a name without its NUL) and an unregistration alone change
 * nothing.
 */
static void test_ksymbol(void)
{
	struct sampler_opts o = { .freq = 1000 };
	struct symbols *syms = symbols__new();
	struct sampler *s = sampler__new(&o, syms, NULL);
	struct profile *p = profile__new();
	static uint64_t buf[256];
	const uint64_t base = 0xffffffffc0100000ULL, ip = base + 0x2abc;
	const uint64_t chain[] = { PERF_CONTEXT_KERNEL, ip };
	const char *name = "bpf_prog_1122334455667788_t";
	struct run r = { 0 };
	uint64_t reg, unreg, listed;
	size_t n = 0, i;
	const struct frame *f;

	n += put_ksymbol(buf + n, base, 0x3000, 0, name, 100);
	n += put_sample(buf + n, ip, 7, 150, chain, 2, PERF_RECORD_MISC_KERNEL);
	n += put_ksymbol(buf + n, base, 0x3000, PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER, name, 200);
	n += put_ksymbol(buf + n, base + 0x10000, 0x1000, 0, "cut", 210);
	memset((char *)(buf + n - 7), 'x', 32);	/* its name fills the record: no NUL */
	((struct perf_event_header *)(buf + n - 10))->size = 7 * 8;
	n -= 3;
	n += put_sample(buf + n, base + 0x10010, 7, 220, NULL, 0, PERF_RECORD_MISC_KERNEL);
	is_int(sampler__replay(s, buf, n * 8), 2, "two samples replayed among KSYMBOL records");
	sampler__add_events(s, p);
	sampler__end_run(s, p, 0, &r);
	f = NULL;
	for (i = 0; i < p->nr_frames; i++)
		if (p->frames[i].addr == ip)
			f = &p->frames[i];
	ok(f && f->sym && !strcmp(profile__str(p, f->sym), name) && f->dso &&
	   !strcmp(profile__str(p, f->dso), name) && f->sym_off == 0x2abc,
	   "the unloaded program's sample: %s+0x2abc, its DSO the same name", name);
	for (i = 0; i < p->nr_frames; i++)
		if (p->frames[i].addr == base + 0x10010)
			f = &p->frames[i];
	ok(f && f->addr == base + 0x10010 && !f->sym, "a cut KSYMBOL record names nothing");
	symbols__ktext_counts(syms, &reg, &unreg, &listed);
	ok(reg == 1 && unreg == 1, "one registration, one unregistration counted");
	profile__free(p);
	sampler__free(s);
	symbols__free(syms);
}

/* Addresses of the stack of the count whose leaf is at leaf (leaf first); its length. */
static size_t stack_of(const struct profile *p, uint64_t leaf, uint64_t *out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < p->nr_counts; i++) {
		uint32_t node = p->counts[i].node;

		if (p->frames[p->nodes[node].frame].addr != leaf)
			continue;
		for (; node != PROFILE_ROOT && n < max; node = p->nodes[node].parent)
			out[n++] = p->frames[p->nodes[node].frame].addr;
		return n;
	}
	return 0;
}

static int strcmp_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Each count of run 0 as "comm samples period addr;addr;..." (leaf first), sorted. */
static char **count_lines(const struct profile *p, size_t *nr)
{
	char **lines = calloc(p->nr_counts + 1, sizeof(*lines));
	size_t i, k = 0;

	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];
		size_t len = 0, cap = 64;
		char *l = malloc(cap);
		uint32_t node;

		len += (size_t)snprintf(l, cap, "%s %llu %llu ", profile__str(p, c->comm),
					(unsigned long long)c->samples, (unsigned long long)c->period);
		for (node = c->node; node; node = p->nodes[node].parent) {
			if (len + 20 > cap)
				l = realloc(l, cap *= 2);
			len += (size_t)snprintf(l + len, cap - len, "%llx;",
						(unsigned long long)p->frames[p->nodes[node].frame].addr);
		}
		lines[k++] = l;
	}
	qsort(lines, k, sizeof(*lines), strcmp_ptr);
	*nr = k;
	return lines;
}

/* Samples of each sampled address (a cell's leaf frame): self shares. */
static uint64_t leaf_samples(const struct profile *p, uint64_t addr, uint64_t *total)
{
	uint64_t n = 0;
	size_t i;

	*total = 0;
	for (i = 0; i < p->nr_counts; i++) {
		*total += p->counts[i].samples;
		if (p->frames[p->nodes[p->counts[i].node].frame].addr == addr)
			n += p->counts[i].samples;
	}
	return n;
}

/*
 * A run with far more distinct chains than a small trie holds (256 Ki
 * nodes against 20,000 samples of chains 8 to 60 deep from 16 frames,
 * ~600,000 distinct nodes; a much smaller trie leaves too little room for
 * the "[elided]" nodes and chaintake.h cuts chains to their leaf, as its
 * own test checks): the trie fills in arrival order to 3/4 of its
 * bound, the chains past that go whole to the chainsort in the spill's
 * folder (the smallest budget: many runs) and into the trie after the
 * run (sampler__take_chains, chaintake.h): nothing cut to its leaf, every
 * sample counted, each sampled address's samples (self) as without a
 * bound, the trie within its bound, nothing left in the folder.  Where
 * no file can be made the trie fills to its whole bound and a new chain
 * keeps its leaf, as before.
 */
static void test_whole(struct symbols *syms)
{
	enum { NS = 20000, NODES = 262144 };
	char dir[] = "/tmp/test-sampler-whole.XXXXXX";
	struct sampler_opts o = { .freq = 1000, .stack_budget = STACKAGG_BUDGET_MIN,
				  .max_nodes = NODES };
	struct sampler_opts big = { .freq = 1000 };
	struct sampler *s, *ref, *nodir;
	struct profile *p = profile__new(), *q = profile__new(), *t = profile__new();
	uint64_t *buf = malloc((size_t)NS * 80 * 8), chain[64], x = 88172645463325252ULL;
	struct run r = { 0 }, rr = { 0 }, rt = { 0 };
	struct chaintake_stats st;
	size_t n = 0, i, filled;
	uint64_t tp, tq, tt, bad = 0, bad_t = 0;
	const char *meta;

	ok(mkdtemp(dir) != NULL, "a folder for the chains");
	o.spill_dir = dir;
	s = sampler__new(&o, syms, NULL);
	ref = sampler__new(&big, syms, NULL);
	o.spill_dir = "/nonexistent/folder";
	nodir = sampler__new(&o, syms, NULL);
	for (i = 0; i < NS; i++) {
		uint64_t y = i % 5 ? 0 : 1 + i % 64;	/* a fifth: one of 64 hot chains */
		uint64_t *rng = y ? &y : &x;
		uint32_t nr, j;

		*rng ^= *rng << 13, *rng ^= *rng >> 7, *rng ^= *rng << 17;
		nr = 8 + (uint32_t)(*rng % 53);
		chain[0] = PERF_CONTEXT_USER;
		for (j = 1; j <= nr; j++) {
			*rng ^= *rng << 13, *rng ^= *rng >> 7, *rng ^= *rng << 17;
			chain[j] = 0x10000000 + (*rng % 16) * 64;
		}
		n += put_sample(buf + n, chain[1], 7 + (uint32_t)(i % 3), 100 + i, chain, nr + 1,
				PERF_RECORD_MISC_USER);
	}
	sampler__add_events(s, p);
	sampler__add_events(ref, q);
	sampler__add_events(nodir, t);
	sampler__bind(s, p, 0);
	sampler__bind(nodir, t, 0);
	is_int(sampler__replay(s, buf, n * 8), NS, "the samples replayed");
	is_int(sampler__replay(ref, buf, n * 8), NS, "and without a bound");
	is_int(sampler__replay(nodir, buf, n * 8), NS, "and with no folder for the chains");
	is_int(sampler__end_run(s, p, 0, &r), 0, "the run ends");
	sampler__end_run(ref, q, 0, &rr);
	sampler__end_run(nodir, t, 0, &rt);
	filled = p->nr_nodes;
	ok(filled <= NODES / 4 * 3 && filled > NODES / 2,
	   "the run filled the trie to 3/4 of its bound (%zu nodes)", filled);
	is_int(sampler__take_chains(s, p, &st), 0, "the chains past it taken into the trie");
	is_int(sampler__take_chains(ref, q, &st), 0, "none without a bound");
	is_int(sampler__take_chains(nodir, t, &st), 0, "none without a folder");
	ok(p->nr_nodes <= NODES && p->nr_nodes > filled,
	   "the trie within its bound (%zu nodes)", p->nr_nodes);
	ok(sampler__stacks_cut(s) == 0 && !profile__meta(p, "stacks_cut_to_leaf"),
	   "no chain cut to its leaf (%llu samples)", (unsigned long long)sampler__stacks_cut(s));
	meta = profile__meta(p, "chains_elided");
	ok(p->whole && meta && strtoull(meta, NULL, 10) > 0,
	   "the chains past the trie are whole beside it (chains_elided %s)", meta ? meta : "none");
	leaf_samples(p, 0, &tp);
	leaf_samples(q, 0, &tq);
	leaf_samples(t, 0, &tt);
	ok(tp == NS && r.samples == NS && tq == NS, "every sample counted (%llu, %llu)",
	   (unsigned long long)tp, (unsigned long long)tq);
	for (i = 0; i < 16; i++) {
		uint64_t a = 0x10000000 + i * 64, u;

		bad += leaf_samples(p, a, &u) != leaf_samples(q, a, &u);
		bad_t += leaf_samples(t, a, &u) != leaf_samples(q, a, &u);
	}
	is_int(bad, 0, "each sampled address's samples as without a bound");
	ok(sampler__stacks_cut(nodir) > 0 && tt == NS && !bad_t &&
	   t->nr_nodes <= NODES + t->nr_frames,
	   "no folder: %llu samples cut to their leaf, every sample and self share kept, "
	   "%zu nodes", (unsigned long long)sampler__stacks_cut(nodir), t->nr_nodes);
	sampler__free(s);
	sampler__free(ref);
	sampler__free(nodir);
	profile__free(p);
	ok(rmdir(dir) == 0, "nothing left in the chains' folder");
	profile__free(q);
	profile__free(t);
	free(buf);
}

/* The unnamed files in dir, from /proc/self/fd, from fd from on: -1 when none. */
static int tmp_fd(const char *dir, int from)
{
	char path[64], target[4096];
	int fd;
	ssize_t n;

	for (fd = from; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		if (!strncmp(target, dir, strlen(dir)) && strstr(target, "(deleted)"))
			return fd;
	}
	return -1;
}

/*
 * The chains sorted past the trie cannot be written or read back (their
 * temporary file made /dev/full under the sorter): sampler__take_chains fails, and p keeps
 * every run's count of the chains in the trie, p->whole none, meta
 * chains_lost the samples of the others (with what p counts, the run's
 * samples); p is saved as a recording and loads.
 */
static void test_whole_lost(struct symbols *syms)
{
	enum { NS = 4000, NODES = 16384 };
	char dir[] = "/tmp/test-sampler-lost.XXXXXX", path[64];
	struct sampler_opts o = { .freq = 1000, .stack_budget = STACKAGG_BUDGET_MIN,
				  .max_nodes = NODES };
	struct sampler *s;
	struct profile *p = profile__new(), *q = NULL;
	uint64_t *buf = malloc((size_t)NS * 80 * 8), chain[64], x = 88172645463325252ULL;
	struct run r = { 0 };
	struct chaintake_stats st;
	struct errmsg e = { "" }, warn = { "" };
	size_t n = 0, i;
	uint64_t tp, tq, lost;
	const char *meta;
	int fd, full, err;

	ok(mkdtemp(dir) != NULL, "a folder for the chains");
	o.spill_dir = dir;
	s = sampler__new(&o, syms, NULL);
	for (i = 0; i < NS; i++) {
		uint32_t nr, j;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		nr = 8 + (uint32_t)(x % 53);
		chain[0] = PERF_CONTEXT_USER;
		for (j = 1; j <= nr; j++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			chain[j] = 0x10000000 + (x % 16) * 64;
		}
		n += put_sample(buf + n, chain[1], 7, 100 + i, chain, nr + 1, PERF_RECORD_MISC_USER);
	}
	sampler__add_events(s, p);
	sampler__bind(s, p, 0);
	is_int(sampler__replay(s, buf, n * 8), NS, "the samples replayed");
	is_int(sampler__end_run(s, p, 0, &r), 0, "the run ends");
	profile__add_run(p, &r);
	ok(p->nr_nodes <= NODES / 4 * 3 && p->nr_nodes > NODES / 2,
	   "the run filled the trie to 3/4 of its bound (%zu nodes)", p->nr_nodes);
	/* the chainsort's file and the spill's (no run follows): /dev/full both */
	full = open("/dev/full", O_RDWR | O_CLOEXEC);
	for (i = 0, fd = tmp_fd(dir, 3); fd >= 0 && full >= 0; fd = tmp_fd(dir, fd + 1))
		i += dup2(full, fd) == fd;
	ok(i > 0, "the sorted chains' file made /dev/full (%zu files)", i);
	close(full);
	err = sampler__take_chains(s, p, &st);
	ok(err < 0, "the chains cannot be read back: %d", err);
	leaf_samples(p, 0, &tp);
	lost = sampler__chains_lost(s);
	meta = profile__meta(p, "chains_lost");
	ok(!p->whole && lost > 0 && tp > 0 && tp + lost == NS && r.samples == NS,
	   "p keeps %llu samples, %llu lost, of the run's %llu", (unsigned long long)tp,
	   (unsigned long long)lost, (unsigned long long)r.samples);
	ok(meta && strtoull(meta, NULL, 10) == lost, "meta chains_lost %s", meta ? meta : "none");
	snprintf(path, sizeof(path), "%s/p.mmprof", dir);
	err = datafile__save_recording(p, path, &warn, &e);
	ok(!err, "saved: %d (%s)", err, e.msg);
	err = err ? err : datafile__load(path, &q, &e);
	if (!err)
		leaf_samples(q, 0, &tq);
	ok(!err && tq == tp, "loads, with its %llu samples (%s)", (unsigned long long)tp, e.msg);
	profile__free(q);
	unlink(path);
	sampler__free(s);
	profile__free(p);
	ok(rmdir(dir) == 0, "nothing left in the chains' folder");
	free(buf);
}

/*
 * A run whose distinct chains overflow the arena many times (the smallest
 * budget, 64 KiB, against 30,000 samples of chains 8 to 60 deep drawn from
 * 16 frames, most of them new, a fifth from 64 chains seen in every
 * spill) is spilled
 * (chainspill.h) and merged at the run's end: its profile is the one of
 * the same samples without a budget, cell for cell (comm, chain, samples,
 * period), none cut to its leaf, and the spill leaves nothing in its
 * folder.  Before the spill the same run cut most chains to their leaf.
 */
static void test_spill(struct symbols *syms)
{
	enum { NS = 30000 };
	char dir[] = "/tmp/test-sampler-spill.XXXXXX";
	struct sampler_opts o = { .freq = 1000, .stack_budget = STACKAGG_BUDGET_MIN };
	struct sampler_opts big = { .freq = 1000 };
	struct sampler *s, *ref, *nodir, *thr, *thr_nodir;
	struct profile *p = profile__new(), *q = profile__new(), *t = profile__new();
	struct profile *tp = profile__new(), *tn = profile__new();
	uint64_t *buf = malloc((size_t)NS * 80 * 8), chain[64], x = 88172645463325252ULL;
	size_t cut[11];
	struct run r = { 0 }, rr = { 0 }, rt = { 0 }, rw = { 0 }, rn = { 0 };
	size_t n = 0, i, nl = 0, nq = 0, nt = 0, diff = 0, diff_t = 0;
	char **a, **b, **c;

	ok(mkdtemp(dir) != NULL, "a folder for the spill");
	o.spill_dir = dir;
	s = sampler__new(&o, syms, NULL);
	ref = sampler__new(&big, syms, NULL);
	/* through the worker and the smallest queue (it wraps, the replay waits for room) */
	o.replay_worker = true;
	o.queue_bytes = 1;
	thr = sampler__new(&o, syms, NULL);
	o.spill_dir = "/nonexistent/folder";
	thr_nodir = sampler__new(&o, syms, NULL);	/* the worker hands the arena over */
	o.replay_worker = false;
	nodir = sampler__new(&o, syms, NULL);
	for (i = 0; i < NS; i++) {
		uint64_t y = i % 5 ? 0 : 1 + i % 64;	/* a fifth: one of 64 hot chains */
		uint64_t *rng = y ? &y : &x;
		uint32_t nr, j;

		if (i % (NS / 10) == 0)
			cut[i / (NS / 10)] = n;
		*rng ^= *rng << 13, *rng ^= *rng >> 7, *rng ^= *rng << 17;
		nr = 8 + (uint32_t)(*rng % 53);
		chain[0] = PERF_CONTEXT_USER;
		for (j = 1; j <= nr; j++) {
			*rng ^= *rng << 13, *rng ^= *rng >> 7, *rng ^= *rng << 17;
			chain[j] = 0x10000000 + (*rng % 16) * 64;
		}
		n += put_sample(buf + n, chain[1], 7 + (uint32_t)(i % 3), 100 + i, chain, nr + 1,
				PERF_RECORD_MISC_USER);
	}
	cut[10] = n;
	sampler__add_events(s, p);
	sampler__add_events(ref, q);
	sampler__add_events(nodir, t);
	sampler__bind(s, p, 0);
	sampler__bind(nodir, t, 0);
	sampler__add_events(thr, tp);
	sampler__add_events(thr_nodir, tn);
	sampler__bind(thr, tp, 0);
	sampler__bind(thr_nodir, tn, 0);
	is_int(sampler__replay(s, buf, n * 8), NS, "the samples replayed");
	is_int(sampler__replay(ref, buf, n * 8), NS, "and without a budget");
	is_int(sampler__replay(nodir, buf, n * 8), NS, "and with no folder to spill to");
	/* in ten rounds: each lets the one before go, to the arena and its spill */
	for (i = 0, nl = nt = 0; i < 10; i++) {
		nl += (size_t)sampler__replay(thr, buf + cut[i], (cut[i + 1] - cut[i]) * 8);
		nt += (size_t)sampler__replay(thr_nodir, buf + cut[i], (cut[i + 1] - cut[i]) * 8);
	}
	is_int(nl, NS, "and through the worker");
	is_int(nt, NS, "and through the worker, no folder");
	ok(sampler__reader_aggregated(thr) == 0 && sampler__reader_aggregated(thr_nodir) == 0,
	   "the worker aggregated every sample the replay's rounds let go");
	ok(sampler__spills(thr) > 5, "the worker spilled %llu times",
	   (unsigned long long)sampler__spills(thr));
	/* samples leave the time-order queue, and fill the arena, as the run ends */
	is_int(sampler__end_run(s, p, 0, &r), 0, "the spilled run ends");
	ok(sampler__spills(s) > 10, "the arena was spilled %llu times",
	   (unsigned long long)sampler__spills(s));
	sampler__end_run(ref, q, 0, &rr);
	is_int(sampler__end_run(nodir, t, 0, &rt), 0, "a run that could not spill ends");
	is_int(sampler__end_run(thr, tp, 0, &rw), 0, "the worker's run ends");
	sampler__end_run(thr_nodir, tn, 0, &rn);
	is_int(rw.samples, rr.samples, "the worker's samples");
	is_int(rn.samples, rr.samples, "the worker's samples, no folder");
	ok(sampler__spills(nodir) == 0 && sampler__stacks_cut(nodir) == 0,
	   "without a spill file: its arena stored into the trie during the run, nothing cut");
	is_int(sampler__stacks_cut(s), 0, "no chain cut to its leaf");
	is_int(r.samples, rr.samples, "the same samples");
	a = count_lines(p, &nl);
	b = count_lines(q, &nq);
	c = count_lines(t, &nt);
	is_int(nl, nq, "the same number of cells");
	for (i = 0; i < nl && i < nq; i++)
		diff += strcmp(a[i], b[i]) != 0;
	is_int(diff, 0, "every cell the same: comm, chain, samples, period");
	for (i = 0; i < nt && i < nq; i++)
		diff_t += strcmp(c[i], b[i]) != 0;
	ok(nt == nq && !diff_t, "and the same without a spill file (%zu cells differ)", diff_t);
	for (i = 0; i < nt; i++)
		free(c[i]);
	free(c);
	/* the profiles the worker made: the same cells, through the spill or the handoff */
	{
		struct profile *both[2] = { tp, tn };
		int k;

		for (k = 0; k < 2; k++) {
			c = count_lines(both[k], &nt);
			for (i = 0, diff_t = 0; i < nt && i < nq; i++)
				diff_t += strcmp(c[i], b[i]) != 0;
			ok(nt == nq && !diff_t, "the worker's profile%s: every cell the same "
			   "(%zu of %zu differ)", k ? ", no spill file" : "", diff_t, nt);
			for (i = 0; i < nt; i++)
				free(c[i]);
			free(c);
		}
	}
	for (i = 0; i < nl; i++)
		free(a[i]);
	for (i = 0; i < nq; i++)
		free(b[i]);
	free(a);
	free(b);
	sampler__free(s);
	sampler__free(ref);
	sampler__free(nodir);
	sampler__free(thr);
	sampler__free(thr_nodir);
	ok(rmdir(dir) == 0, "nothing left in the spill's folder");
	profile__free(p);
	profile__free(q);
	profile__free(t);
	profile__free(tp);
	profile__free(tn);
	free(buf);
}

/*
 * Code without frame pointers leaves junk after the leaf of a user chain
 * (seen under stress-ng: bffa804a0c2ebffe, 3fdcc66e9931c45e, 0).  The
 * sampler cuts the user part at the first address outside the pid's
 * executable maps as they were at the sample's time, keeps the leaf and
 * the kernel part, and leaves valid chains alone.
 */
static void test_junk_frames(struct symbols *syms)
{
	struct sampler_opts o = { .freq = 1000 };
	struct sampler *s = sampler__new(&o, syms, NULL);
	struct profile *p = profile__new();
	static uint64_t buf[1024];
	const uint64_t base = (uint64_t)(uintptr_t)burn_user;
	const uint64_t ipa = base + 1, ipb = base + 2, ipc = base + 3, ipd = base + 5;
	const uint64_t ipe = base + 6;
	const uint64_t va = (uint64_t)(uintptr_t)syscall_loop + 7;
	const uint64_t vb = (uint64_t)(uintptr_t)fault_loop + 9;
	const uint64_t j1 = 0xbffa804a0c2ebffeULL, j2 = 0x3fdcc66e9931c45eULL;
	const uint64_t k1 = 0xffffffffdead0010ULL;
	const uint64_t ca[] = { PERF_CONTEXT_USER, ipa, va, j1, j2, 0 };
	const uint64_t cb[] = { PERF_CONTEXT_USER, ipb, va, vb };
	const uint64_t cc[] = { PERF_CONTEXT_KERNEL, k1, PERF_CONTEXT_USER, ipc, 16 };
	const uint64_t cd[] = { PERF_CONTEXT_USER, ipd, va, 0x7000000010ULL };
	const uint64_t ce[] = { PERF_CONTEXT_USER, ipe, va, 0x7000001010ULL };
	uint64_t start, end = 0, pgoff = 0, got[8];
	char exe[256];
	struct run r = { 0 };
	const char *meta;
	size_t n = 0, k;

	start = own_text_map(base, &end, &pgoff, exe, sizeof(exe));
	ok(start && va >= start && va < end && vb >= start && vb < end,
	   "the valid frames lie in this test's text mapping");
	n += put_comm(buf + n, 4243, "junky", 100);
	((struct perf_event_header *)(buf + n - 7))->misc |= PERF_RECORD_MISC_COMM_EXEC;
	n += put_mmap2(buf + n, 4243, start, end - start, pgoff, exe, 110);
	sampler__replay(s, buf, n * 8);
	sampler__replay(s, buf, 0);	/* a second round applies the first's records */
	is_int(sampler__sideband_held(s), 0, "the maps of pid 4243 are applied");
	n = 0;
	n += put_sample(buf + n, ipa, 4243, 300, ca, 6, PERF_RECORD_MISC_USER);
	n += put_sample(buf + n, ipb, 4243, 310, cb, 4, PERF_RECORD_MISC_USER);
	n += put_sample(buf + n, k1, 4243, 320, cc, 5, PERF_RECORD_MISC_KERNEL);
	/* JIT code mapped before the next sample, read in the same round */
	n += put_mmap2(buf + n, 4243, 0x7000000000, 4096, 0, "//anon", 330);
	n += put_sample(buf + n, ipd, 4243, 340, cd, 4, PERF_RECORD_MISC_USER);
	n += put_sample(buf + n, ipe, 4243, 350, ce, 4, PERF_RECORD_MISC_USER);
	is_int(sampler__replay(s, buf, n * 8), 5, "five samples replayed");
	sampler__add_events(s, p);
	sampler__end_run(s, p, 0, &r);

	k = stack_of(p, ipa, got, 8);
	ok(k == 2 && got[0] == ipa && got[1] == va,
	   "junk after a valid frame is cut: the stack ends at it (%zu frames)", k);
	k = stack_of(p, ipb, got, 8);
	ok(k == 3 && got[0] == ipb && got[1] == va && got[2] == vb,
	   "a chain of valid frames is kept whole (%zu frames)", k);
	k = stack_of(p, k1, got, 8);
	ok(k == 2 && got[0] == k1 && got[1] == ipc,
	   "kernel frames and the user leaf stay, the junk after them goes (%zu frames)", k);
	k = stack_of(p, ipd, got, 8);
	ok(k == 3 && got[2] == 0x7000000010ULL,
	   "a frame in code mapped just before the sample is kept (%zu frames)", k);
	k = stack_of(p, ipe, got, 8);
	ok(k == 2, "one past that mapping is cut (%zu frames)", k);
	meta = profile__meta(p, "user_chains_truncated");
	is_str(meta, "3", "meta user_chains_truncated counts the cut chains");
	profile__free(p);
	sampler__free(s);
}

static int bench(struct symbols *syms, double millions)
{
	enum { NSTACKS = 2000, DEPTH = 30, NREC = 1 << 12 };
	struct sampler_opts o = { .freq = 4000 };
	struct sampler *s = sampler__new(&o, syms, NULL);
	uint64_t *buf = malloc((size_t)NREC * (DEPTH + 8) * 8), chain[DEPTH], rng = 42;
	size_t n = 0, i, total = (size_t)(millions * 1e6), done = 0;
	struct timespec t0, t1;
	double sec;

	for (i = 0; i < NREC; i++) {
		size_t which, j;

		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		which = (rng >> 33) % 4 ? (rng >> 40) % 64 : (rng >> 40) % NSTACKS;
		chain[0] = PERF_CONTEXT_KERNEL;
		for (j = 1; j < DEPTH; j++)
			chain[j] = 0xffffffff81000000ULL + ((which * 2654435761u + j * 40503u) % 65536) * 16;
		chain[20] = PERF_CONTEXT_USER;
		n += put_sample(buf + n, chain[1], 1000 + (uint32_t)(which % 4), i, chain, DEPTH,
				PERF_RECORD_MISC_KERNEL);
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	while (done < total)
		done += (size_t)sampler__replay(s, buf, n * 8);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	sec = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("ingest: %zu samples (%d-entry callchains, %zu bytes each) in %.3f s: "
	       "%.2f M samples/s per CPU-second on one core (thread CPU time)\n", done, DEPTH, (size_t)(DEPTH + 7) * 8, sec,
	       (double)done / sec / 1e6);
	free(buf);
	sampler__free(s);
	return 0;
}

/*
 * A live recording: the reading thread only copies records for the worker
 * (sampler-queue.c), through the smallest queue, which wraps many times
 * here.  Every sample read is aggregated, none on the reading thread
 * while the run reads; those the worker's time-order queue still held at
 * the close are taken at sampler__end_run, on this thread.  A replay
 * aggregates every sample on the caller's thread (the count counts).
 */
static void test_reader_only_copies(struct symbols *syms)
{
	struct sampler_opts o = { .freq = 4000, .queue_bytes = 1 };
	struct errmsg e = { "" };
	struct profile *p = profile__new();
	struct sampler *s = sampler__new(&o, syms, &e);
	uint64_t read = 0, lost = 0, while_read;
	struct run r = { 0 };

	record_system_wide(s, 12);
	while_read = sampler__reader_aggregated(s);
	sampler__progress(s, &read, &lost);
	sampler__add_events(s, p);
	sampler__end_run(s, p, 0, &r);
	ok(read >= 1000, "samples read (%llu)", (unsigned long long)read);
	is_int((long long)while_read, 0, "the reading thread aggregated no sample while reading");
	is_int((long long)r.samples, (long long)read, "every sample read was aggregated");
	ok(samples_with(p, 0, 0, "burn_user", 0) > 0, "this process's function seen");
	sampler__free(s);
	profile__free(p);

	{
		struct sampler_opts ro = { .freq = 1000 };
		struct sampler *rs = sampler__new(&ro, syms, &e);
		static uint64_t buf[64];
		const uint64_t chain[] = { PERF_CONTEXT_USER, 0x1234 };
		size_t n = 0;

		n += put_sample(buf + n, 0x1234, 4242, 100, chain, 2, PERF_RECORD_MISC_USER);
		n += put_sample(buf + n, 0x1234, 4242, 200, chain, 2, PERF_RECORD_MISC_USER);
		sampler__replay(rs, buf, n * 8);
		sampler__replay(rs, buf, 0);	/* a second round takes the first's samples */
		is_int((long long)sampler__reader_aggregated(rs), 2,
		       "a replay aggregates on the caller's thread");
		sampler__free(rs);
	}
}

int main(int argc, char **argv)
{
	struct symbols *syms = symbols__new();
	struct errmsg e = { "" };
	int err;

	if (argc > 1 && !strcmp(argv[1], "--bench")) {
		err = bench(syms, argc > 2 ? atof(argv[2]) : 20);
		symbols__free(syms);
		return err;
	}
	err = symbols__load_kernel(syms, &e);
	if (!ok(err == 0, "kallsyms loaded"))
		printf("#   %s\n", e.msg);
	test_replay(syms);
	test_period_saturates(syms);
	test_frames_bound(syms);
	test_ksymbol();
	test_sideband_order(syms);
	test_fork_comm_order(syms);
	test_exec_keeps_maps(syms);
	test_sideband_bounded(syms);
	test_spill(syms);
	test_whole(syms);
	test_whole_lost(syms);
	test_junk_frames(syms);
	test_default_event(syms);
	test_two_events(syms);
	test_errors(syms);
	test_system_wide(syms);
	test_reader_only_copies(syms);
	symbols__free(syms);
	return done_testing();
}
