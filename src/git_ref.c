/* git_ref.c - see git_ref.h. */
#include "git_ref.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int git_ref_check(const char *ref, char *error, size_t error_len)
{
	size_t length = ref ? strlen(ref) : 0;

	if (length == 0) {
		snprintf(error, error_len, "an empty ref names no commit");
		return -EINVAL;
	}
	if (ref[0] == '-') {
		snprintf(error, error_len, "'%.64s%s' is not a commit (it looks like an option)", ref,
			 length > 64 ? "..." : "");
		return -EINVAL;
	}
	if (length > GIT_REF_MAX) {
		snprintf(error, error_len, "'%.64s...' is not a commit: a ref of %zu bytes (at most %d)",
			 ref, length, GIT_REF_MAX);
		return -EINVAL;
	}
	return 0;
}
