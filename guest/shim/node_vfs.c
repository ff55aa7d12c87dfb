/* The part of the file system ferry owns: /dev/dri with one render node, and the sysfs files
 * libdrm's drmGetDevices2 / drmGetDevice2 read to describe it as a platform (device-tree) device.
 * Every other entry under /dev/dri, /sys/dev/char/226:* and /sys/class/drm is hidden. */
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "shim.h"

#define NODE_NAME "renderD128"
#define NODE_SYSFS "/sys/dev/char/226:128"
#define DISPLAY_NAME "card0"
#define DISPLAY_SYSFS "/sys/dev/char/226:0"

/* The device-tree node the real part is described by (libdrm reads OF_FULLNAME and
 * OF_COMPATIBLE_*; v3dv matches "brcm,2711-v3d", Turnip only needs a platform bus). */
struct of_desc {
	const char *driver;
	const char *fullname;
	const char *compatible[2];
};

static void describe(const struct shim_identity *id, struct of_desc *d, char *compat0, size_t n)
{
	if (id->family == SHIM_FAMILY_V3D) {
		bool v71 = strcmp(id->gpu, "v3d-7.1") == 0;
		*d = (struct of_desc){ "v3d", v71 ? "/axi/v3d@1002000000" : "/soc/v3d@7ec00000",
				       { v71 ? "brcm,2712-v3d" : "brcm,2711-v3d", NULL } };
		return;
	}
	/* Adreno: "qcom,adreno-<core><major><minor>.<patch>" as the a6xx device trees name them. */
	unsigned model = 0;
	sscanf(id->gpu, "a%u", &model);
	unsigned patch = model == 630 ? 2 : model == 660 ? 1 : 0;
	snprintf(compat0, n, "qcom,adreno-%u.%u", model, patch);
	*d = (struct of_desc){ "msm", model == 660 ? "/soc@0/gpu@3d00000" : "/soc@0/gpu@5000000",
			       { compat0, "qcom,adreno" } };
}

static void set_file(struct shim_vnode *out, const char *text)
{
	out->kind = SHIM_VNODE_FILE;
	size_t len = strlen(text);
	if (len >= sizeof(out->content))
		len = sizeof(out->content) - 1;
	memcpy(out->content, text, len);
	out->content[len] = '\0';
	out->content_len = len;
}

static void set_link(struct shim_vnode *out, const char *target, const char *resolved)
{
	out->kind = SHIM_VNODE_LINK;
	snprintf(out->target, sizeof(out->target), "%s", target);
	snprintf(out->content, sizeof(out->content), "%s", resolved);
	out->content_len = strlen(out->content);
}

static void device_uevent(const struct shim_identity *id, struct shim_vnode *out)
{
	char compat0[64];
	struct of_desc d;
	describe(id, &d, compat0, sizeof(compat0));
	char text[1024];
	int n = snprintf(text, sizeof(text), "DRIVER=%s\nOF_NAME=%s\nOF_FULLNAME=%s\n", d.driver,
			 id->family == SHIM_FAMILY_V3D ? "v3d" : "gpu", d.fullname);
	unsigned nc = 0;
	for (unsigned i = 0; i < 2 && d.compatible[i]; i++, nc++)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "OF_COMPATIBLE_%u=%s\n", i, d.compatible[i]);
	snprintf(text + n, sizeof(text) - (size_t)n, "OF_COMPATIBLE_N=%u\n", nc);
	set_file(out, text);
}

bool shim_vfs_normalize(const char *path, char *out, size_t n)
{
	size_t j = 0;
	for (size_t i = 0; path[i]; i++) {
		if (path[i] == '/' && j > 0 && out[j - 1] == '/')
			continue;
		if (j + 1 >= n)
			return false;
		out[j++] = path[i];
	}
	if (j > 1 && out[j - 1] == '/')
		j--;
	out[j] = '\0';
	return true;
}

static bool has_prefix(const char *s, const char *prefix, const char **rest)
{
	size_t n = strlen(prefix);
	if (strncmp(s, prefix, n) != 0 || (s[n] != '\0' && s[n] != '/'))
		return false;
	*rest = s + n;
	return true;
}

static const char *const render_entries[] = { NODE_NAME, NULL };
static const char *const display_entries[] = { DISPLAY_NAME, NULL };
static const char *const v3d_entries[] = { DISPLAY_NAME, NODE_NAME, NULL };
static const char *const no_entries[] = { NULL };

/* The vc4 display controller's node (card0), for V3D only: v3dv 22.3 enumerates a V3D GPU only
 * beside a vc4 primary node, as on a Raspberry Pi. It is listed and described; opening it fails,
 * since no display is offered. */
static void display_uevent(struct shim_vnode *out)
{
	set_file(out, "DRIVER=vc4-drm\nOF_NAME=gpu\nOF_FULLNAME=/gpu\nOF_COMPATIBLE_0=brcm,bcm2711-vc5\n"
		      "OF_COMPATIBLE_N=1\n");
}

/* rest: what follows the node's sysfs directory ("" or "/device/uevent"); display: card0. */
static void node_sysfs(const struct shim_identity *id, const char *rest, bool display, struct shim_vnode *out)
{
	static const char *const device_entries[] = { "drm", "subsystem", "uevent", NULL };
	static const char *const node_entries[] = { "dev", "device", "subsystem", "uevent", NULL };
	if (!*rest) {
		out->kind = SHIM_VNODE_DIR;
		out->entries = node_entries;
	} else if (strcmp(rest, "/uevent") == 0) {
		set_file(out, display ? "MAJOR=226\nMINOR=0\nDEVNAME=dri/" DISPLAY_NAME "\nDEVTYPE=drm_minor\n"
				      : "MAJOR=226\nMINOR=128\nDEVNAME=dri/" NODE_NAME "\nDEVTYPE=drm_minor\n");
	} else if (strcmp(rest, "/dev") == 0) {
		set_file(out, display ? "226:0\n" : "226:128\n");
	} else if (strcmp(rest, "/subsystem") == 0) {
		set_link(out, "../../../../class/drm", "/sys/class/drm");
	} else if (strcmp(rest, "/device") == 0) {
		out->kind = SHIM_VNODE_DIR;
		out->entries = device_entries;
	} else if (strcmp(rest, "/device/uevent") == 0) {
		if (display)
			display_uevent(out);
		else
			device_uevent(id, out);
	} else if (strcmp(rest, "/device/subsystem") == 0) {
		set_link(out, "../../../bus/platform", "/sys/bus/platform");
	} else if (strcmp(rest, "/device/drm") == 0) {
		out->kind = SHIM_VNODE_DIR;
		out->entries = display ? display_entries : render_entries;
	} else if (strcmp(rest, "/device/drm/" NODE_NAME) == 0 || strcmp(rest, "/device/drm/" DISPLAY_NAME) == 0) {
		out->kind = SHIM_VNODE_DIR;
		out->entries = no_entries;
	}
}

/* /sys/class/devcoredump: the device's pending dumps (rest: what follows the class directory). */
static void devcoredump_sysfs(const char *rest, struct shim_vnode *out)
{
	static const char *const dump_entries[] = { "data", "failing_device", NULL };
	static __thread char names[32][16];
	static __thread const char *list[33];
	if (!*rest) {
		unsigned ids[32];
		int n = shim_backend_devcd_list(ids, 32);
		for (int i = 0; i < n; i++) {
			snprintf(names[i], sizeof(names[i]), "devcd%u", ids[i]);
			list[i] = names[i];
		}
		list[n] = NULL;
		out->kind = SHIM_VNODE_DIR;
		out->entries = list;
		return;
	}
	unsigned id;
	char tail[32] = "";
	if (sscanf(rest, "/devcd%u%31s", &id, tail) < 1 || id == 0)
		return;
	unsigned ids[32];
	int n = shim_backend_devcd_list(ids, 32);
	bool pending = false;
	for (int i = 0; i < n; i++)
		pending |= ids[i] == id;
	if (!pending)
		return;
	if (!tail[0]) {
		out->kind = SHIM_VNODE_DIR;
		out->entries = dump_entries;
	} else if (strcmp(tail, "/data") == 0) {
		out->kind = SHIM_VNODE_FILE;
		out->devcd = id;
	} else if (strcmp(tail, "/failing_device") == 0) {
		set_link(out, "../../../dev/char/226:128/device", NODE_SYSFS "/device");
	}
}

bool shim_vfs_lookup(const char *path, struct shim_vnode *out)
{
	/* Cheap test first: most paths a program opens are nobody's business here. */
	if (!path || (strncmp(path, "/dev", 4) != 0 && strncmp(path, "/sys", 4) != 0 &&
		      strncmp(path, "//", 2) != 0))
		return false;
	char p[512];
	if (!shim_vfs_normalize(path, p, sizeof(p)))
		return false;
	const char *rest;
	bool dri = has_prefix(p, "/dev/dri", &rest);
	bool sys_node = !dri && has_prefix(p, "/sys/dev/char", &rest) && strncmp(rest, "/226:", 5) == 0;
	bool sys_class = !dri && !sys_node && has_prefix(p, "/sys/class/drm", &rest);
	const char *devcd_rest;
	bool devcd = !dri && !sys_node && !sys_class && has_prefix(p, "/sys/class/devcoredump", &devcd_rest);
	if (!dri && !sys_node && !sys_class && !devcd)
		return false;

	memset(out, 0, sizeof(*out));
	out->kind = SHIM_VNODE_NONE;
	const struct shim_identity *id = shim_identity();
	if (!id)
		return true; /* no GPU: all of it is hidden */
	bool with_display = id->family == SHIM_FAMILY_V3D;
	if (devcd) {
		devcoredump_sysfs(devcd_rest, out);
		return true;
	}
	if (dri) {
		if (!*rest) {
			out->kind = SHIM_VNODE_DIR;
			out->entries = with_display ? v3d_entries : render_entries;
		} else if (strcmp(rest, "/" NODE_NAME) == 0) {
			out->kind = SHIM_VNODE_DEV;
		} else if (with_display && strcmp(rest, "/" DISPLAY_NAME) == 0) {
			out->kind = SHIM_VNODE_DISPLAY;
		}
		return true;
	}
	if (sys_node) {
		if (has_prefix(p, NODE_SYSFS, &rest))
			node_sysfs(id, rest, false, out);
		else if (with_display && has_prefix(p, DISPLAY_SYSFS, &rest))
			node_sysfs(id, rest, true, out);
		return true;
	}
	if (!*rest) {
		out->kind = SHIM_VNODE_DIR;
		out->entries = with_display ? v3d_entries : render_entries;
	} else if (has_prefix(rest, "/" NODE_NAME, &rest)) {
		node_sysfs(id, rest, false, out);
	} else if (with_display && has_prefix(rest, "/" DISPLAY_NAME, &rest)) {
		node_sysfs(id, rest, true, out);
	}
	return true;
}

void shim_vfs_stat(const struct shim_vnode *n, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_nlink = 1;
	st->st_blksize = 4096;
	switch (n->kind) {
	case SHIM_VNODE_DEV:
	case SHIM_VNODE_DISPLAY: {
		unsigned minor = n->kind == SHIM_VNODE_DEV ? SHIM_RENDER_MINOR : 0;
		st->st_mode = S_IFCHR | 0666;
		st->st_rdev = makedev(SHIM_DRM_MAJOR, minor);
		st->st_dev = makedev(0, 5); /* devtmpfs */
		st->st_ino = 1000 + minor;
		st->st_gid = 44; /* video, as udev creates DRM nodes (group render on newer systems) */
		break;
	}
	case SHIM_VNODE_DIR:
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		st->st_dev = makedev(0, 22); /* sysfs */
		break;
	case SHIM_VNODE_FILE:
		st->st_mode = S_IFREG | 0444;
		st->st_size = 4096; /* sysfs reports a page for every attribute */
		st->st_dev = makedev(0, 22);
		break;
	case SHIM_VNODE_LINK:
		st->st_mode = S_IFLNK | 0777;
		st->st_size = (off_t)strlen(n->target);
		st->st_dev = makedev(0, 22);
		break;
	case SHIM_VNODE_NONE:
		break;
	}
}
