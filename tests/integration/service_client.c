/* A client for the service tests (check_service.py): `query` opens the device (HELLO) and asks
 * for its name (DEVICE_QUERY), what a tcp client can do today; `submit N` runs N checked GPU
 * writes, each one submit and one fence wait, and prints how long they took. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "itest.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[2], "query") && (strcmp(argv[2], "submit") || argc != 4))) {
		fprintf(stderr, "usage: service_client URI query | URI submit N\n");
		return 2;
	}
	const char *uri = argv[1];
	if (!strcmp(argv[2], "query")) {
		struct ferry_device *dev;
		int r = ferry_device_open(uri, &dev);
		if (r < 0) {
			fprintf(stderr, "service_client: open %s: %d\n", uri, r);
			return 1;
		}
		uint32_t family;
		const char *name;
		r = ferry_device_info(dev, &family, &name);
		if (r < 0)
			fprintf(stderr, "service_client: device query: %s\n", ferry_device_last_error(dev));
		else
			printf("device: %s family %u\n", name, family);
		ferry_device_close(dev);
		return r < 0;
	}
	long n = strtol(argv[3], NULL, 10);
	if (n < 1 || n > 100000)
		return 2;
	struct itest_client c;
	if (itest_client_open(uri, &c) < 0) {
		fprintf(stderr, "service_client: cannot open %s\n", uri);
		return 1;
	}
	double t0 = now_s();
	for (long i = 0; i < n; i++) {
		if (!itest_client_works(&c, 0x5e000000u + (uint32_t)i)) {
			fprintf(stderr, "service_client: submit %ld failed\n", i);
			itest_client_close(&c);
			return 1;
		}
	}
	printf("submits: %ld seconds: %.3f\n", n, now_s() - t0);
	itest_client_close(&c);
	return 0;
}
