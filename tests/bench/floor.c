/*
 * floor: the kernel's own cost of callchain sampling, with no tool around it.
 *
 * Opens the sampling event exactly as `mmprof record` does (cpu-clock at
 * -F Hz, IP|TID|TIME|CPU|PERIOD|CALLCHAIN, inherit, side-band records,
 * wake at a quarter full), one ring buffer per CPU, and drains the buffers
 * by walking record headers only (to count samples and PERF_RECORD_LOST)
 * and advancing data_tail: no parsing, no hashing, no writing.  Whatever a
 * profiler costs a workload beyond this program's cost is the profiler's
 * own doing; this much every tool pays.
 *
 *   floor [-F HZ] [-m PAGES] [--counters] -- CMD [ARGS]    the command (inherit)
 *   floor [-F HZ] [-m PAGES] -a SECONDS                   every CPU, that long
 *
 * --counters also opens the software counting set mmprof record opened by
 * default until issue 18 (task-clock, cpu-clock, context-switches,
 * cpu-migrations, page-faults, minor-faults, major-faults; inherit,
 * counting only), to measure what such counters add: record now takes the
 * fault and switch counts from rusage and /proc (taskcount.h).
 * Prints one line: "floor: samples N lost L" on stderr.  Bench-only code:
 * raw perf_event_open, no libperf, so nothing of mmprof is in the way.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define MAX_CPUS 256

static int open_event(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

struct ring {
	struct perf_event_mmap_page *meta;
	const unsigned char *data;
	uint64_t size;
};

/* Walk the headers between tail and head, count, then free the space. */
static void drain(struct ring *r, uint64_t *samples, uint64_t *lost)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;

	while (tail < head) {
		const unsigned char *p = r->data + (tail & (r->size - 1));
		struct perf_event_header h;

		/* the 8-byte header never straddles the end: records are 8-aligned */
		memcpy(&h, p, sizeof(h));
		if (h.size == 0)
			break;
		if (h.type == PERF_RECORD_SAMPLE) {
			(*samples)++;
		} else if (h.type == PERF_RECORD_LOST) {
			uint64_t w[2];

			if ((tail & (r->size - 1)) + 24 <= r->size) {
				memcpy(w, p + 8, sizeof(w));
				*lost += w[1];
			}
		}
		tail += h.size;
	}
	__atomic_store_n(&r->meta->data_tail, head, __ATOMIC_RELEASE);
}

static const uint64_t sw_counters[] = {
	PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_CPU_CLOCK, PERF_COUNT_SW_CONTEXT_SWITCHES,
	PERF_COUNT_SW_CPU_MIGRATIONS, PERF_COUNT_SW_PAGE_FAULTS, PERF_COUNT_SW_PAGE_FAULTS_MIN,
	PERF_COUNT_SW_PAGE_FAULTS_MAJ,
};

int main(int argc, char **argv)
{
	struct ring rings[MAX_CPUS];
	struct pollfd pfd[MAX_CPUS];
	int freq = 4000, pages = 256, counters = 0, ncpu, i, go[2], status;
	double seconds = 0;
	pid_t child = -1;
	uint64_t samples = 0, lost = 0;
	size_t psz = (size_t)getpagesize();
	int64_t end = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-F") && i + 1 < argc)
			freq = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-m") && i + 1 < argc)
			pages = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-a") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--counters"))
			counters = 1;
		else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else {
			fprintf(stderr, "usage: floor [-F HZ] [-m PAGES] [--counters] (-a SEC | -- CMD...)\n");
			return 2;
		}
	}
	if (seconds <= 0 && i >= argc) {
		fprintf(stderr, "floor: a command or -a SECONDS is needed\n");
		return 2;
	}
	ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu > MAX_CPUS)
		ncpu = MAX_CPUS;

	if (seconds <= 0) {
		char c;

		if (pipe(go))
			return 2;
		child = fork();
		if (child < 0)
			return 2;
		if (child == 0) {
			close(go[1]);
			if (read(go[0], &c, 1) != 1)
				_exit(127);
			execvp(argv[i], argv + i);
			_exit(127);
		}
		close(go[0]);
	}

	for (int cpu = 0; cpu < ncpu; cpu++) {
		struct perf_event_attr a;
		void *m;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_CPU_CLOCK;
		a.freq = 1;
		a.sample_freq = (uint64_t)freq;
		a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
		a.sample_id_all = 1;
		a.inherit = 1;
		a.disabled = child > 0;
		a.enable_on_exec = child > 0;
		a.exclude_guest = 1;
		a.watermark = 1;
		a.wakeup_watermark = (uint32_t)((size_t)pages * psz / 4);
		a.mmap = a.mmap2 = a.comm = a.comm_exec = a.task = 1;
		pfd[cpu].fd = open_event(&a, child > 0 ? child : -1, cpu);
		if (pfd[cpu].fd < 0) {
			fprintf(stderr, "floor: perf_event_open cpu %d: %s\n", cpu, strerror(errno));
			return 2;
		}
		pfd[cpu].events = POLLIN;
		m = mmap(NULL, (size_t)(pages + 1) * psz, PROT_READ | PROT_WRITE, MAP_SHARED,
			 pfd[cpu].fd, 0);
		if (m == MAP_FAILED) {
			fprintf(stderr, "floor: mmap: %s\n", strerror(errno));
			return 2;
		}
		rings[cpu].meta = m;
		rings[cpu].data = (const unsigned char *)m + psz;
		rings[cpu].size = (uint64_t)pages * psz;
	}
	if (counters && child > 0) {
		for (size_t k = 0; k < sizeof(sw_counters) / sizeof(sw_counters[0]); k++) {
			struct perf_event_attr a;

			memset(&a, 0, sizeof(a));
			a.size = sizeof(a);
			a.type = PERF_TYPE_SOFTWARE;
			a.config = sw_counters[k];
			a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
			a.inherit = 1;
			a.disabled = 1;
			a.enable_on_exec = 1;
			a.exclude_guest = 1;
			/* as perf stat and mmprof's counting: one per thread, any CPU */
			if (open_event(&a, child, -1) < 0) {
				fprintf(stderr, "floor: counter %zu: %s\n", k, strerror(errno));
				return 2;
			}
		}
	}

	if (child > 0) {
		if (write(go[1], "g", 1) != 1)
			return 2;
		close(go[1]);
	} else {
		end = now_ns() + (int64_t)(seconds * 1e9);
	}
	for (;;) {
		int done;

		poll(pfd, (nfds_t)ncpu, 100);
		for (int cpu = 0; cpu < ncpu; cpu++)
			drain(&rings[cpu], &samples, &lost);
		if (child > 0)
			done = waitpid(child, &status, WNOHANG) == child;
		else
			done = now_ns() >= end;
		if (done)
			break;
	}
	for (int cpu = 0; cpu < ncpu; cpu++) {
		ioctl(pfd[cpu].fd, PERF_EVENT_IOC_DISABLE, 0);
		drain(&rings[cpu], &samples, &lost);
	}
	fprintf(stderr, "floor: samples %llu lost %llu\n", (unsigned long long)samples,
		(unsigned long long)lost);
	if (child > 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		return 2;
	return 0;
}
