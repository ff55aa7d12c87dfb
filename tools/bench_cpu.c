/* The CPU-time split of `ferry bench` (bench_cpu.h): per-thread schedstat, simulated GPU vs the
 * rest. schedstat's first field is the nanoseconds the thread ran, without tick granularity. */
#include "bench_cpu.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int read_small(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	size_t n = fread(buf, 1, cap - 1, f);
	fclose(f);
	buf[n] = 0;
	return 0;
}

int bench_cpu_sample(pid_t pid, struct bench_cpu *out)
{
	char dir[64];
	snprintf(dir, sizeof(dir), "/proc/%d/task", pid > 0 ? (int)pid : (int)getpid());
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	*out = (struct bench_cpu){ 0 };
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[sizeof(dir) + sizeof(e->d_name) + 16], buf[128], comm[64];
		unsigned long long ns;
		snprintf(path, sizeof(path), "%s/%s/schedstat", dir, e->d_name);
		/* A thread gone since readdir: it no longer counts. */
		if (read_small(path, buf, sizeof(buf)) < 0 || sscanf(buf, "%llu", &ns) != 1)
			continue;
		/* The calling thread is running: its schedstat is as of its last tick or switch, up to
		 * a tick behind (a burst of inline submits read 0). Its CPU clock is current. */
		struct timespec ts;
		if (atoi(e->d_name) == (int)gettid() && clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
			ns = (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
		snprintf(path, sizeof(path), "%s/%s/comm", dir, e->d_name);
		if (read_small(path, comm, sizeof(comm)) < 0)
			continue;
		comm[strcspn(comm, "\n")] = 0;
		if (!strcmp(comm, BENCH_CPU_SIM_THREAD))
			out->sim_ns += ns;
		else
			out->other_ns += ns;
	}
	closedir(d);
	return 0;
}

void bench_cpu_per(const struct bench_cpu *before, const struct bench_cpu *after, double units,
		   double *sim_us, double *other_us)
{
	*sim_us = (double)(after->sim_ns - before->sim_ns) / 1e3 / units;
	*other_us = (double)(after->other_ns - before->other_ns) / 1e3 / units;
}
