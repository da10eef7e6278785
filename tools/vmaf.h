/* Exit statuses of the vmaf tool (docs/errors.md). */
#ifndef VMAF_TOOLS_VMAF_H
#define VMAF_TOOLS_VMAF_H

enum VmafExitStatus {
    VMAF_EXIT_OK = 0,
    VMAF_EXIT_SCORING = 1,     /* the library failed while scoring (or out of memory) */
    VMAF_EXIT_USAGE = 2,       /* bad command line, unknown feature or option */
    VMAF_EXIT_INPUT = 3,       /* unreadable, malformed or mismatched input */
    VMAF_EXIT_MODEL = 4,       /* model cannot be loaded or used */
    VMAF_EXIT_OUTPUT = 5,      /* report cannot be written */
    VMAF_EXIT_GPU = 6,         /* --backend cuda without a usable GPU, or a GPU failure */
    VMAF_EXIT_INTERRUPTED = 130, /* SIGINT, as shells report it (SIGTERM 143, SIGHUP 129) */
};

#endif /* VMAF_TOOLS_VMAF_H */
