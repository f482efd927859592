// SPDX-License-Identifier: GPL-2.0
/*
 * pageclass [-p PAGE] [-v] IMAGE REF...: classify every page of IMAGE (a
 * device or a dump of one) by what it holds: the same page of REF number
 * i (the first that matches), all zeroes, or something else. Prints one
 * line "ref0=N ref1=N ... zero=N other=N" (a page that is all zeroes in a
 * REF counts for that REF); with -v first one line per page: its number
 * and class ("0", "1", ..., "zero", "other"). Used to check what a power
 * cut left of two versions of a device's data.
 * Exits 0, or 2 on an error (a REF shorter than IMAGE is one).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REFS 8

int main(int argc, char **argv)
{
	size_t page = 4096, n;
	unsigned long long count[MAX_REFS + 2] = { 0 }, pno = 0;
	FILE *img, *ref[MAX_REFS];
	char *buf, *rbuf, *zero;
	int verbose = 0, nref, i, a = 1;

	while (a < argc && argv[a][0] == '-') {
		if (!strcmp(argv[a], "-v"))
			verbose = 1;
		else if (!strcmp(argv[a], "-p") && a + 1 < argc)
			page = strtoul(argv[++a], NULL, 0);
		else
			goto usage;
		a++;
	}
	nref = argc - a - 1;
	if (nref < 1 || nref > MAX_REFS || !page)
		goto usage;
	img = fopen(argv[a], "rb");
	if (!img) {
		perror(argv[a]);
		return 2;
	}
	for (i = 0; i < nref; i++) {
		ref[i] = fopen(argv[a + 1 + i], "rb");
		if (!ref[i]) {
			perror(argv[a + 1 + i]);
			return 2;
		}
	}
	buf = malloc(page);
	rbuf = malloc(page);
	zero = calloc(1, page);
	if (!buf || !rbuf || !zero)
		return 2;
	while ((n = fread(buf, 1, page, img)) == page) {
		int class = -1;

		for (i = 0; i < nref; i++) {
			if (fread(rbuf, 1, page, ref[i]) != page) {
				fprintf(stderr, "pageclass: %s is shorter than %s\n",
					argv[a + 1 + i], argv[a]);
				return 2;
			}
			if (class < 0 && !memcmp(buf, rbuf, page))
				class = i;
		}
		if (class < 0)
			class = memcmp(buf, zero, page) ? nref + 1 : nref;
		count[class]++;
		if (verbose) {
			if (class < nref)
				printf("%llu %d\n", pno, class);
			else
				printf("%llu %s\n", pno, class == nref ? "zero" : "other");
		}
		pno++;
	}
	if (n) {
		fprintf(stderr, "pageclass: %s is not a whole number of pages\n", argv[a]);
		return 2;
	}
	for (i = 0; i < nref; i++)
		printf("ref%d=%llu ", i, count[i]);
	printf("zero=%llu other=%llu\n", count[nref], count[nref + 1]);
	return 0;
usage:
	fprintf(stderr, "usage: pageclass [-p PAGE] [-v] IMAGE REF...\n");
	return 2;
}
