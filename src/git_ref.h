/*
 * git_ref.h - what rackbisect takes for a ref before git sees it.
 *
 * A ref reaches git as one argv word, never through a shell. Still, a word
 * that starts with '-' would be read as an option, and one longer than any
 * path cannot name a ref file (git answers "File name too long", which read
 * as lab trouble, exit 3). Both are the user's mistake: a usage error,
 * said before anything runs. Every place that hands a ref to git checks it
 * here.
 */
#ifndef RB_GIT_REF_H
#define RB_GIT_REF_H

#include <stddef.h>

/* Longer than any ref a repository holds: refs are files, paths of at most
 * PATH_MAX bytes, and revision expressions (v3.3~2^{commit}) are short. */
#define GIT_REF_MAX 1024

/* 0, or -EINVAL with `error` saying what is wrong (the ref shown cut). */
int git_ref_check(const char *ref, char *error, size_t error_len);

#endif
