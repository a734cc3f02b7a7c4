/* impl.c -- the names of call statuses; see impl.h. */
#include "sandbox/impl.h"

#include <string.h>

static const char *const status_names[] = {
    [CALL_RETURNED] = "returned",
    [CALL_CRASHED] = "crashed",
    [CALL_TIMEOUT] = "timed out",
    [CALL_EXITED] = "called exit",
    [CALL_OVERRUN] = "touched memory outside its buffers",
    [CALL_CONST_WRITE] = "modified a const input",
    [CALL_SYSCALL] = "made a forbidden system call",
    [CALL_MEMORY] = "ran out of memory",
    [CALL_SKIPPED] = "skipped",
};

const char *impl_status_name(enum impl_status st)
{
    if ((unsigned)st >= sizeof status_names / sizeof status_names[0])
        return "unknown status";
    return status_names[st];
}
