/* The pause between two looks of a bounded spin (the sim's device lock, libferry's fence
 * waits): lets the sibling hyperthread run and saves power, without giving up the CPU. */
#ifndef FERRY_CPU_RELAX_H
#define FERRY_CPU_RELAX_H

static inline void ferry_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#endif
}

#endif
