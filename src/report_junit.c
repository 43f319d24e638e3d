/* report_junit.c - the scheduler's cells as JUnit XML. */
#include "report_junit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "files.h"

/* Text and attribute values escaped; control bytes XML 1.0 forbids become '?'. */
static void put_escaped(FILE *out, const char *text)
{
	for (; *text; text++) {
		unsigned char c = (unsigned char)*text;

		if (c == '&')
			fputs("&amp;", out);
		else if (c == '<')
			fputs("&lt;", out);
		else if (c == '>')
			fputs("&gt;", out);
		else if (c == '"')
			fputs("&quot;", out);
		else if (c < 0x20 && c != '\n' && c != '\t')
			fputc('?', out);
		else
			fputc(c, out);
	}
}

static void put_case(FILE *out, const struct scheduler_cell *cell)
{
	static const char *const element[] = { [VERDICT_FAIL] = "failure", [VERDICT_INFRA] = "error",
						[VERDICT_SKIP] = "skipped" };

	fputs("    <testcase classname=\"", out);
	put_escaped(out, cell->home->name);
	fprintf(out, "\" name=\"");
	put_escaped(out, cell->workload->name);
	fprintf(out, " #%u\">\n", cell->repeat_index + 1);
	if (cell->outcome != VERDICT_PASS) {
		fprintf(out, "      <%s message=\"", element[cell->outcome]);
		put_escaped(out, cell->summary);
		fprintf(out, "\">run %lld on ", (long long)cell->run_id);
		put_escaped(out, cell->ran_on);
		fprintf(out, "</%s>\n", element[cell->outcome]);
	}
	fputs("    </testcase>\n", out);
}

int report_junit_write(const char *path, const char *suite_name,
		       const struct scheduler_cell *cells, size_t count)
{
	unsigned int by_outcome[4] = { 0 };
	char *text = NULL;
	size_t length = 0, i;
	FILE *out = open_memstream(&text, &length);
	int rc;

	if (!out)
		return -1;
	for (i = 0; i < count; i++)
		by_outcome[cells[i].outcome]++;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"", out);
	put_escaped(out, suite_name);
	fprintf(out, "\" tests=\"%zu\" failures=\"%u\" errors=\"%u\" skipped=\"%u\">\n", count,
		by_outcome[VERDICT_FAIL], by_outcome[VERDICT_INFRA], by_outcome[VERDICT_SKIP]);
	for (i = 0; i < count; i++)
		put_case(out, &cells[i]);
	fputs("  </testsuite>\n</testsuites>\n", out);
	if (fclose(out) != 0) {
		free(text);
		return -1;
	}
	rc = files_write_atomic(path, text);
	free(text);
	if (rc) {
		errno = -rc;
		return -1;
	}
	return 0;
}
