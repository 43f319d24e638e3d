/*
 * report_html.h - a report as ONE self-contained HTML page: no network, no
 * external CSS, scripts or fonts, nothing that needs JavaScript (there is
 * none). In order: the verdict with what it rests on; the gate's board x
 * workload matrix (baseline and candidate counts per cell) and its
 * regressions; the bisection's path (every run in order, its result, and
 * the best candidate's probability as it narrowed, as an inline SVG plot
 * with the confidence line); power and energy per workload and per commit
 * (the runs' power_avg and energy metrics, inline SVG plots with the values
 * in a table beside); every run with relative links to its logs in the
 * state directory; and the trend across nights when the gate (or the
 * bisection's night) was a night of `rackbisect nightly`: its branch's
 * nights as inline SVG (the head's fail ratio per night, a square per
 * verdict, power and energy per night when measured) and a table, its own
 * night highlighted. Every stored string is HTML-escaped; bytes that are
 * not UTF-8 show as U+FFFD.
 *
 * `report nightly`: report_html_write_nights, the same trend and table for
 * every branch, on a page of its own.
 */
#ifndef RB_REPORT_HTML_H
#define RB_REPORT_HTML_H

#include <stdio.h>

#include "report_data.h"
#include "report_nights.h"

struct report_html_options {
	/* the directory the page is written to (absolute), so log links are
	 * relative to it; NULL: links are absolute paths */
	const char *output_dir;
};

void report_html_write(FILE *out, const struct report_data *data,
		       const struct report_html_options *options);

void report_html_write_nights(FILE *out, const struct report_nights *nights);

/* The path of `target` relative to the directory `from` (both absolute and
 * without "." or ".." components) into out: 0 or -ENAMETOOLONG. */
int report_html_relative_path(const char *from, const char *target, char *out, size_t len);

#endif
