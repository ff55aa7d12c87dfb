/* Bounded spins (the sim's device lock, libferry's fence waits): the pause between two looks,
 * and whether a spin can pay at all, which needs a second CPU for the awaited thread. */
#ifndef FERRY_CPU_RELAX_H
#define FERRY_CPU_RELAX_H

#include <sched.h>
#include <unistd.h>

static inline void ferry_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#endif
}

/* CPUs the calling thread may run on: its affinity mask (taskset, a container's cpuset), not
 * only the CPUs online; a thread confined to one CPU must never spin. */
static inline int ferry_cpus_usable(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		return CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

#endif
