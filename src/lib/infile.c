/* infile: what an option that reads a file takes (infile.h). */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "mmprof/infile.h"

int infile__check(const char *path, const char *what, struct errmsg *e)
{
	struct stat st;

	if (stat(path, &st))
		return errmsg__set(e, -errno, "cannot open %s '%s': %s", what, path, strerror(errno));
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
		return errmsg__set(e, -EINVAL, "%s '%s' is not a regular file", what, path);
	return 0;
}
