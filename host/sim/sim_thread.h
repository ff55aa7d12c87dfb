/* Threads a library starts inside someone else's process (the fake kernel's GPU workers, the
 * shim's sync file waiters): they take no asynchronous signals. */
#ifndef FERRY_SIM_THREAD_H
#define FERRY_SIM_THREAD_H

#include <pthread.h>
#include <signal.h>

/* pthread_create with every signal blocked in the new thread. A program that blocks SIGCHLD
 * and reads it from a signalfd (weston watching the client it launched) never sees a signal the
 * kernel handed to one of our threads instead, because they left it unblocked. The caller's
 * mask is restored; synchronous faults (SIGSEGV ...) still reach the faulting thread. */
static inline int sim_thread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int r = pthread_create(t, attr, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}

/* The same for a thread nobody joins. 0 or pthread_create's error. */
static inline int sim_thread_spawn_detached(void *(*fn)(void *), void *arg)
{
	pthread_attr_t a;
	pthread_t t;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	int r = sim_thread_create(&t, &a, fn, arg);
	pthread_attr_destroy(&a);
	return r;
}

#endif
