/* libferry-fakekernel.so's backend: the node is ferry's simulated msm or v3d kernel, in this
 * process, with no ferryd and no boundary: the native baseline ferry's overheads are measured
 * against. FERRY_GPU picks the part (the names ferryd's --gpu takes; default a630);
 * FERRY_SIM_STRICT=1 is ferryd's --sim-strict: work the simulator does not execute fails its job
 * as a GPU error; FERRY_SIM_HANGCHECK_MS its --hangcheck-ms. Without strict mode such work is
 * warned about on stderr once per process and kind. FERRY_FAKEKERNEL_FULL_UAPI=1: the node stands for
 * the real 6.1 kernel under a ferryd (its render-node kdev, tools/ferryd_spawn.c), so it answers
 * the whole uAPI as that kernel does — relocs, SET_IOVA, no lost opens — and not only what ferry
 * offers its guests. The opens' crash states appear as the device's devcoredumps under
 * /sys/class/devcoredump (node_vfs.c), as msm's do. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>
#include <time.h>

#include "backend/kdev.h"
#include "ferry/uapi/msm_drm.h"
#include "fakekernel_sync_file.h"
#include "shim.h"
#include "sim/msm/sim_msm.h"
#include "sim/v3d/sim_v3d.h"

struct shim_dev {
	struct kdev *kd;
	enum shim_family family;
	struct shim_dev *next; /* opens (devcoredumps are gathered from all of them) */
};

/* Every open, and the device's devcoredump gathered from them: the kernel keeps one per device
 * at a time (devcd<N>, N counting up), not per file. */
static pthread_mutex_t opens_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shim_dev *opens;
struct devcd {
	unsigned id;
	char *text;
	size_t len;
	struct devcd *next;
};
static struct devcd *devcds;
static unsigned devcd_next = 1;
#define DEVCD_MAX_BYTES (1u << 20)

static struct sim_msm_device *msm;
static bool full_uapi;
static struct sim_v3d_device *v3d;

/* The simulator's report of unexecuted work on one open: said once per process and kind (opens
 * of one process report on their own ioctl threads, hence the atomic). */
static atomic_uint warned;
static void unmodeled_note(void *cookie, unsigned kind, uint64_t count, const char *what)
{
	(void)cookie;
	(void)count;
	if (kind >= 32 || (atomic_fetch_or(&warned, 1u << kind) & (1u << kind)))
		return;
	if (sim_unmodeled_fails_strict(kind))
		shim_log(true, "%s (first: %s; FERRY_SIM_STRICT=1 fails such work; said once)",
			 sim_unmodeled_message(kind), what);
}

int shim_backend_identify(struct shim_identity *out)
{
	const char *gpu = getenv("FERRY_GPU");
	if (!gpu || !*gpu)
		gpu = "a630";
	int r;
	if (strncmp(gpu, "v3d-", 4) == 0) {
		r = sim_v3d_device_create(gpu, &v3d);
		out->family = SHIM_FAMILY_V3D;
	} else {
		r = sim_msm_device_create(gpu, &msm);
		out->family = SHIM_FAMILY_MSM;
	}
	if (r < 0) {
		shim_log(true, "no simulated GPU '%s' (FERRY_GPU): %s", gpu, strerror(-r));
		return r;
	}
	const char *fu = getenv("FERRY_FAKEKERNEL_FULL_UAPI");
	full_uapi = fu && *fu && strcmp(fu, "0") != 0;
	const char *st = getenv("FERRY_SIM_STRICT");
	bool strict = st && *st && strcmp(st, "0") != 0;
	/* ferryd's --hangcheck-ms for a ferryd serving this kernel as its render node (the real
	 * kernels' msm.hangcheck_period / drm_sched timeout, here per process). */
	const char *hc = getenv("FERRY_SIM_HANGCHECK_MS");
	unsigned hangcheck_ms = hc && *hc ? (unsigned)strtoul(hc, NULL, 10) : 0;
	if (v3d) {
		if (hangcheck_ms)
			sim_v3d_set_hangcheck_ms(v3d, hangcheck_ms);
		sim_v3d_set_strict(v3d, strict);
		sim_v3d_set_sync_file_hooks(v3d, &shim_fakekernel_sync_files);
	} else {
		if (hangcheck_ms)
			sim_msm_set_hangcheck_ms(msm, hangcheck_ms);
		sim_msm_set_strict(msm, strict);
		sim_msm_set_sync_file_hooks(msm, &shim_fakekernel_sync_files);
	}
	snprintf(out->gpu, sizeof(out->gpu), "%s", gpu);
	return 0;
}

/* msm's dumps name the submitting task (comm:, cmdline:) unless the open set other names: the
 * simulator's default is "ferry", so the process's own are set, as the kernel would show them. */
static void name_the_process(struct kdev *kd)
{
	static const struct { const char *path; uint32_t param; } names[] = {
		{ "/proc/self/comm", MSM_PARAM_COMM },
		{ "/proc/self/cmdline", MSM_PARAM_CMDLINE },
	};
	char buf[4096];
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int fd = open(names[i].path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		/* cmdline's NULs as the kernel's kstrdup_quotable_cmdline prints them: spaces. */
		for (ssize_t j = 0; j < n; j++)
			if (buf[j] == '\0')
				buf[j] = ' ';
		while (n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == '\n'))
			n--;
		struct drm_msm_param p = {
			.pipe = MSM_PIPE_3D0, .param = names[i].param,
			.value = (uint64_t)(uintptr_t)buf, .len = (uint32_t)n,
		};
		kd->ops->ioctl(kd, DRM_IOCTL_MSM_SET_PARAM, &p);
	}
}

int shim_backend_open(struct shim_dev **out)
{
	const struct shim_identity *id = shim_identity();
	if (!id)
		return -ENODEV;
	struct shim_dev *dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->family = id->family;
	dev->kd = id->family == SHIM_FAMILY_V3D ? sim_v3d_open(v3d) : sim_msm_open(msm);
	if (!dev->kd) {
		free(dev);
		return -ENOMEM;
	}
	pthread_mutex_lock(&opens_lock);
	dev->next = opens;
	opens = dev;
	pthread_mutex_unlock(&opens_lock);
	if (id->family == SHIM_FAMILY_V3D) {
		sim_v3d_set_unmodeled_cb(dev->kd, unmodeled_note, NULL);
	} else {
		sim_msm_set_unmodeled_cb(dev->kd, unmodeled_note, NULL);
		name_the_process(dev->kd);
	}
	/* As ferryd loses a context: after a fault or hang its submits fail EIO, its waits end. */
	if (full_uapi)
		;
	else if (id->family == SHIM_FAMILY_V3D)
		sim_v3d_lose_on_fault(dev->kd, SHIM_STRANDED_GRACE_NS);
	else
		sim_msm_lose_on_fault(dev->kd, SHIM_STRANDED_GRACE_NS);
	*out = dev;
	return 0;
}

void shim_backend_close(struct shim_dev *dev)
{
	pthread_mutex_lock(&opens_lock);
	for (struct shim_dev **p = &opens; *p; p = &(*p)->next) {
		if (*p == dev) {
			*p = dev->next;
			break;
		}
	}
	pthread_mutex_unlock(&opens_lock);
	dev->kd->ops->close(dev->kd);
	free(dev);
}

/* As drm_ioctl: the kernel works on its own copy of the argument and copies it back only for
 * _IOC_READ requests (a simulated kernel writing into a write-only struct must not reach the
 * caller; msm's SUBMITQUEUE_QUERY updates len in its copy only). */
static int kernel_ioctl(struct shim_dev *dev, unsigned long request, void *arg)
{
	size_t size = _IOC_SIZE(request);
	if (!arg || size == 0 || (_IOC_DIR(request) & _IOC_READ))
		return dev->kd->ops->ioctl(dev->kd, request, arg);
	unsigned char copy[_IOC_SIZEMASK + 1];
	shim_ioctl_copy_in(request, arg, copy, size);
	return dev->kd->ops->ioctl(dev->kd, request, copy);
}

int shim_backend_ioctl(struct shim_dev *dev, unsigned long request, void *arg)
{
	int ret = full_uapi ? 0 : shim_not_offered(dev->family, request, arg);
	if (ret == 0)
		ret = kernel_ioctl(dev, request, arg);
	shim_offer_fixup(request, arg, ret);
	/* As the shim's backend: no wait sleeps for ever on a syncobj a failed submit left empty. */
	if (ret < 0 && !full_uapi && shim_is_submit(dev->family, request)) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		int64_t end = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec + SHIM_STRANDED_GRACE_NS;
		if (dev->family == SHIM_FAMILY_V3D)
			sim_v3d_strand_waits(dev->kd, end);
		else
			sim_msm_strand_waits(dev->kd, end);
	}
	return ret;
}

void *shim_backend_mmap(struct shim_dev *dev, void *addr, size_t len, int prot, int flags, off_t offset)
{
	/* The simulated kernel picks the address, as for any mapping without MAP_FIXED. */
	if (flags & MAP_FIXED) {
		(void)addr;
		errno = EINVAL;
		return MAP_FAILED;
	}
	return dev->kd->ops->mmap(dev->kd, len, prot, flags, (uint64_t)offset);
}

/* Moves each open's new crash state into the device's list (opens_lock held). */
static void devcd_gather(void)
{
	char *buf = NULL;
	for (struct shim_dev *d = opens; d; d = d->next) {
		/* As the kernels: msm makes devcoredumps, v3d none (its reports stay the simulator's). */
		if (d->family != SHIM_FAMILY_MSM || !d->kd->ops->coredump)
			continue;
		if (!buf && !(buf = malloc(DEVCD_MAX_BYTES)))
			return;
		ssize_t n = d->kd->ops->coredump(d->kd, buf, DEVCD_MAX_BYTES);
		/* As devcoredump and msm: while the device has a dump pending, a new crash makes none. */
		if (n <= 0 || devcds)
			continue;
		struct devcd *c = calloc(1, sizeof(*c));
		char *text = malloc((size_t)n);
		if (!c || !text) {
			free(c);
			free(text);
			continue;
		}
		memcpy(text, buf, (size_t)n);
		*c = (struct devcd){ .id = devcd_next++, .text = text, .len = (size_t)n };
		struct devcd **tail = &devcds;
		while (*tail)
			tail = &(*tail)->next;
		*tail = c;
	}
	free(buf);
}

int shim_backend_devcd_list(unsigned *ids, int max)
{
	pthread_mutex_lock(&opens_lock);
	devcd_gather();
	int n = 0;
	for (struct devcd *c = devcds; c && n < max; c = c->next)
		ids[n++] = c->id;
	pthread_mutex_unlock(&opens_lock);
	return n;
}

int shim_backend_devcd_read(unsigned id, char **text, size_t *len)
{
	pthread_mutex_lock(&opens_lock);
	int ret = -ENOENT;
	for (struct devcd *c = devcds; c; c = c->next) {
		if (c->id != id)
			continue;
		*text = malloc(c->len);
		if (*text) {
			memcpy(*text, c->text, c->len);
			*len = c->len;
		}
		ret = *text ? 0 : -ENOMEM;
		break;
	}
	pthread_mutex_unlock(&opens_lock);
	return ret;
}

int shim_backend_devcd_take(unsigned id, char **text, size_t *len)
{
	pthread_mutex_lock(&opens_lock);
	int ret = -ENOENT;
	for (struct devcd **p = &devcds; *p; p = &(*p)->next) {
		if ((*p)->id != id)
			continue;
		struct devcd *c = *p;
		*p = c->next;
		if (text) {
			*text = c->text;
			*len = c->len;
		} else {
			free(c->text);
		}
		free(c);
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&opens_lock);
	return ret;
}
