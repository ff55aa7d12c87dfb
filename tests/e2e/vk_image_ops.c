/* vk_image_ops: image clears, copies, blits and clear-only render passes on any Vulkan device
 * (Turnip / v3dv through ferry, or lavapipe), every byte read back and compared with what this
 * program computes; --case draw / dispatch run one draw or compute dispatch and report the fence.
 * Prints one line per case and a summary line; exit status 0 only when every case passed. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_context.h"
#include "vk_image_cases.h"

struct options {
	struct vk_ctx_options ctx;
	uint64_t timeout_ns;
	const char *cases;  /* comma-separated names; NULL: the default set */
};

static void usage(FILE *to)
{
	fprintf(to,
		"usage: vk_image_ops [--device-name-contains STR] [--timeout-ms MS] [--case NAMES]\n"
		"                    [--list]\n"
		"  --case NAMES   comma-separated case names (default: every transfer case)\n"
		"  --list         print the cases and exit\n");
}

static int parse_options(int argc, char **argv, struct options *opt)
{
	static const struct option longopts[] = {
		{"device-name-contains", required_argument, NULL, 'd'},
		{"timeout-ms", required_argument, NULL, 't'},
		{"case", required_argument, NULL, 'c'},
		{"list", no_argument, NULL, 'l'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	memset(opt, 0, sizeof(*opt));
	opt->timeout_ns = 60ull * 1000000000ull;
	int c;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': opt->ctx.device_name_contains = optarg; break;
		case 't': {
			char *end = NULL;
			errno = 0;
			unsigned long v = strtoul(optarg, &end, 10);
			if (errno || !end || *end || optarg[0] == '-' || v == 0 || v > 24ul * 3600 * 1000)
				goto bad;
			opt->timeout_ns = (uint64_t)v * 1000000ull;
			break;
		}
		case 'c': opt->cases = optarg; break;
		case 'l':
			for (uint32_t i = 0; i < image_case_count; i++)
				printf("%-28s %s%s\n", image_cases[i].name, image_cases[i].about,
				       image_cases[i].in_default_set ? "" : " (only when named)");
			exit(0);
		case 'h': usage(stdout); exit(0);
		default: goto bad;
		}
	}
	if (optind == argc)
		return 0;
bad:
	usage(stderr);
	return -1;
}

/* Is case `name` in the comma-separated list? */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == n && strncmp(p, name, n) == 0)
			return true;
		p += len + (comma ? 1 : 0);
	}
	return false;
}

static bool names_known(const char *list)
{
	bool ok = true;
	for (const char *p = list; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		bool found = false;
		for (uint32_t i = 0; i < image_case_count && !found; i++)
			found = strlen(image_cases[i].name) == len && strncmp(p, image_cases[i].name, len) == 0;
		if (!found) {
			fprintf(stderr, "unknown case \"%.*s\" (--list shows them)\n", (int)len, p);
			ok = false;
		}
		p += len + (comma ? 1 : 0);
	}
	return ok;
}

int main(int argc, char **argv)
{
	struct options opt;
	if (parse_options(argc, argv, &opt) != 0)
		return 2;
	if (opt.cases && (!*opt.cases || !names_known(opt.cases)))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct vk_ctx ctx;
	if (!vk_ctx_init(&ctx, &opt.ctx)) {
		printf("vk_image_ops: FAIL no device\n");
		return 1;
	}
	struct case_env env = {.ctx = &ctx, .timeout_ns = opt.timeout_ns, .last_wait = "none"};
	uint32_t run = 0, passed = 0;
	char failed[512] = "";
	for (uint32_t i = 0; i < image_case_count; i++) {
		const struct image_case *c = &image_cases[i];
		if (opt.cases ? !listed(opt.cases, c->name) : !c->in_default_set)
			continue;
		run++;
		uint64_t before = env.bytes_checked;
		bool ok = c->run(&env);
		printf("case %s: %s (%" PRIu64 " bytes checked, last wait %s)\n", c->name,
		       ok ? "PASS" : "FAIL", env.bytes_checked - before, env.last_wait);
		if (ok) {
			passed++;
		} else {
			size_t used = strlen(failed);
			snprintf(failed + used, sizeof(failed) - used, "%s%s", used ? "," : "", c->name);
		}
	}
	bool pass = run > 0 && passed == run;
	printf("vk_image_ops: %s device=\"%s\" cases=%u passed=%u bytes_checked=%" PRIu64
	       " last_wait=%s%s%s\n", pass ? "PASS" : "FAIL", ctx.props.deviceName, run, passed,
	       env.bytes_checked, env.last_wait, *failed ? " failed=" : "", failed);
	vk_ctx_fini(&ctx);
	return pass ? 0 : 1;
}
