/*
 * The CUDA state: the device context every CUDA call runs in, made current
 * around each use, and its errors (cuda_state.h); vmaf_cuda_state_init()
 * and vmaf_cuda_import_state() of libvmaf_cuda.h. The pinned host copies
 * are in cuda_host_copy.c, the picture pool in cuda_picture_pool.c.
 *
 * cudart is linked statically and loads libcuda itself, so the library
 * loads on machines without a driver; vmaf_cuda_state_init() then fails
 * with -ENODEV and everything else runs on the CPU. The driver API (for a
 * caller's CUcontext) is reached through cudart's entry-point lookup for
 * the same reason.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf_cuda.h"

#include "context.h"
#include "cuda/cuda_internal.h"
#include "cuda/cuda_kernels.h"
#include "cuda/cuda_state.h"
#include "log.h"
#include "util/team.h"

/* Driver API version whose signatures the typedefs in cuda_state.h follow. */
#define DRIVER_API_VERSION 12000

int vmaf_cuda_errno(cudaError_t e)
{
    if (e == cudaSuccess)
        return 0;
    /* The failed call left e as the thread's last error. Unread, it would
     * fail the next launch checked with cudaGetLastError(): a pool that
     * did not fit, for instance, would fail the first frame. A sticky
     * error is not lost: every later call returns it. */
    (void)cudaGetLastError();
    switch (e) {
    case cudaErrorMemoryAllocation: return -ENOMEM;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorSystemDriverMismatch: return -ENODEV;
    default: return -EIO;
    }
}

/* The errors that corrupt the context: every later call of the process in
 * it returns the same code. */
static bool sticky(cudaError_t e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorECCUncorrectable:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorContextIsDestroyed: return true;
    default: return false;
    }
}

bool vmaf_cuda_report(struct VmafCudaState *s, cudaError_t e)
{
    return !s || !sticky(e) || atomic_exchange(&s->reported, (int)e) != (int)e;
}

static int enter(struct VmafCudaState *s, const char *who, long frame, bool teardown)
{
    const int r = s->push(s->ctx);
    if (r) {
        /* While scoring, each call that meets it says it: callers log
         * nothing of their own, and a call after an earlier failure the
         * caller went past (a pool that could not be made) must still say
         * why it fails. In a teardown, said once: the extractors, the
         * frames, the pool and the state each try again as they are
         * freed. */
        if (!atomic_exchange(&s->lost, true) || !teardown) {
            char at[32] = "";
            if (frame >= 0)
                snprintf(at, sizeof(at), "frame %ld: ", frame);
            vmaf_error("%s: %scould not make the CUDA context of %s current (driver error "
                       "%d); the context may have been destroyed by its owner",
                       who, at, s->name, r);
        }
        return -EIO;
    }
    return 0;
}

int vmaf_cuda_enter_for(struct VmafCudaState *s, const char *who, long frame)
{
    return enter(s, who, frame, false);
}

int vmaf_cuda_enter(struct VmafCudaState *s)
{
    return enter(s, "cuda", -1, false);
}

int vmaf_cuda_enter_teardown(struct VmafCudaState *s)
{
    return enter(s, "cuda", -1, true);
}

void vmaf_cuda_leave(struct VmafCudaState *s)
{
    void *prev = NULL;
    (void)s->pop(&prev);
}

static int entry_point(const char *sym, void **fn)
{
    enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    const cudaError_t e =
        cudaGetDriverEntryPointByVersion(sym, fn, DRIVER_API_VERSION, cudaEnableDefault, &q);
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !*fn) {
        (void)vmaf_cuda_errno(e);
        vmaf_error("cuda: the CUDA driver lacks %s (%s); update the NVIDIA driver", sym,
                   e != cudaSuccess ? cudaGetErrorString(e) : "symbol not found");
        return -ENODEV;
    }
    return 0;
}

/* Index of the device to use when no context is given: VMAF_CUDA_DEVICE,
 * counted among the devices CUDA_VISIBLE_DEVICES leaves visible. */
static int wanted_device(int count, int *dev)
{
    const char *env = getenv("VMAF_CUDA_DEVICE");
    *dev = 0;
    if (!env || !*env)
        return 0;
    char *end = NULL;
    const long v = strtol(env, &end, 10);
    if (*end || v < 0 || v >= count) {
        vmaf_error("cuda: VMAF_CUDA_DEVICE=%s is not a device index; %d device(s) are "
                   "visible, use 0..%d",
                   env, count, count - 1);
        return -EINVAL;
    }
    *dev = (int)v;
    return 0;
}

/* A device the build has no kernels for passes every check above and
 * fails only when the first extractor loads its kernels, after the caller
 * (the CLI's --backend auto, FFmpeg) has committed to the GPU: refuse it
 * here, as a device that is not usable, so that the caller stays on the
 * CPU. */
static int check_kernels(struct VmafCudaState *s, int major, int minor)
{
    int err = vmaf_cuda_enter(s);
    if (err)
        return err;
    int ptx_arch = 0;
    const cudaError_t e = vmaf_cuda_kernels_loadable(&ptx_arch);
    vmaf_cuda_leave(s);
    if (e == cudaSuccess) {
        s->pdl = major >= 9 && ptx_arch >= 90;
        return 0;
    }
    const int why = vmaf_cuda_errno(e);
    if (e != cudaErrorNoKernelImageForDevice && e != cudaErrorUnsupportedPtxVersion &&
        e != cudaErrorInvalidPtx && e != cudaErrorInvalidKernelImage) {
        /* Not the build's architectures: out of memory loading the module,
         * or a device or context already failed. */
        vmaf_error("cuda: %s: loading the kernels failed: %s", s->name, cudaGetErrorString(e));
        return why;
    }
    if (e == cudaErrorUnsupportedPtxVersion)
        vmaf_warning("cuda: %s, compute capability %d.%d, cannot use this build's kernels: "
                     "the NVIDIA driver is older than the CUDA toolkit that compiled them "
                     "(%s); update the driver, or rebuild libvmaf with -Dcuda-arch "
                     "including %d%d; using the CPU",
                     s->name, major, minor, cudaGetErrorString(e), major, minor);
    else
        vmaf_warning("cuda: %s, compute capability %d.%d, cannot run this build's kernels "
                     "(%s); rebuild libvmaf with -Dcuda-arch including %d%d to use it; "
                     "using the CPU",
                     s->name, major, minor, cudaGetErrorString(e), major, minor);
    return -ENODEV;
}

/* Whether the NVIDIA driver's library can be loaded at all. */
static bool driver_installed(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!h)
        return false;
    dlclose(h);
    return true;
}

/* The number of devices, or -ENODEV with a warning, not an error: probing
 * for a GPU and finding none is normal (the CLI's --backend auto, FFmpeg
 * builds on CPU hosts). cudart reports a missing driver as one too old for
 * it: the warning says which it is, since "update the driver" is the wrong
 * advice for a machine that has none. */
static int count_devices(int *count)
{
    *count = 0;
    const cudaError_t e = cudaGetDeviceCount(count);
    if (e == cudaSuccess && *count > 0)
        return 0;
    (void)vmaf_cuda_errno(e);
    if (e == cudaErrorInsufficientDriver && !driver_installed())
        vmaf_warning("cuda: no usable CUDA device (no NVIDIA driver: libcuda.so.1 cannot "
                     "be loaded)");
    else
        vmaf_warning("cuda: no usable CUDA device (%s)",
                     e != cudaSuccess ? cudaGetErrorString(e) : "no device found");
    return -ENODEV;
}

/* The driver calls the state needs, reached through cudart. */
typedef struct DriverCalls {
    VmafCuCtxGetDevice get_device;
    VmafCuDevicePrimaryCtxRetain retain;
    VmafCuDeviceGet device_get;
} DriverCalls;

static int find_driver_calls(struct VmafCudaState *s, DriverCalls *d)
{
    int err = entry_point("cuCtxPushCurrent", (void **)&s->push);
    if (!err)
        err = entry_point("cuCtxPopCurrent", (void **)&s->pop);
    if (!err)
        err = entry_point("cuCtxGetDevice", (void **)&d->get_device);
    if (!err)
        err = entry_point("cuDevicePrimaryCtxRetain", (void **)&d->retain);
    if (!err)
        err = entry_point("cuDevicePrimaryCtxRelease", (void **)&s->primary_release);
    if (!err)
        err = entry_point("cuDeviceGet", (void **)&d->device_get);
    return err;
}

/* The caller's CUcontext (FFmpeg's, say) and the device it is on. */
static int use_given_context(struct VmafCudaState *s, void *cu_ctx, const DriverCalls *d)
{
    s->ctx = cu_ctx;
    if (s->push(s->ctx)) {
        vmaf_error("cuda: the CUcontext given in VmafCudaConfiguration cannot be made "
                   "current; pass a live context or NULL for the primary context");
        return -EINVAL;
    }
    const int r = d->get_device(&s->cu_device);
    vmaf_cuda_leave(s);
    if (r) {
        vmaf_error("cuda: cannot query the device of the given CUcontext (driver error %d)", r);
        return -EIO;
    }
    /* The runtime ordinal equals the driver ordinal of the same process. */
    s->device = s->cu_device;
    return 0;
}

/* The primary context of the device VMAF_CUDA_DEVICE names (or the first). */
static int use_primary_context(struct VmafCudaState *s, int count, const DriverCalls *d)
{
    const int err = wanted_device(count, &s->device);
    if (err)
        return err;
    int r = d->device_get(&s->cu_device, s->device);
    if (!r)
        r = d->retain(&s->ctx, s->cu_device);
    if (r) {
        vmaf_error("cuda: cannot open the primary context of device %d (driver error %d)",
                   s->device, r);
        return -ENODEV;
    }
    s->own_primary = true;
    return 0;
}

/* The device's name and size, and whether it runs this build's kernels. */
static int read_device(struct VmafCudaState *s)
{
    struct cudaDeviceProp prop;
    int err = vmaf_cuda_enter(s);
    if (err)
        return err;
    const cudaError_t e = cudaGetDeviceProperties(&prop, s->device);
    vmaf_cuda_leave(s);
    if (e != cudaSuccess) {
        vmaf_error("cuda: cannot read the properties of device %d: %s", s->device,
                   cudaGetErrorString(e));
        return vmaf_cuda_errno(e);
    }
    snprintf(s->name, sizeof(s->name), "device %d (%s)", s->device, prop.name);
    s->sm_count = prop.multiProcessorCount;
    err = check_kernels(s, prop.major, prop.minor);
    if (!err)
        vmaf_info("cuda: using %s, compute capability %d.%d", s->name, prop.major,
                  prop.minor);
    return err;
}

static struct VmafCudaState *state_alloc(void)
{
    struct VmafCudaState *s = calloc(1, sizeof(*s));
    if (!s) {
        vmaf_error("cuda: out of memory allocating the CUDA state");
        return NULL;
    }
    atomic_init(&s->refs, 1);
    atomic_init(&s->imported, false);
    atomic_init(&s->lost, false);
    atomic_init(&s->reported, (int)cudaSuccess);
    pthread_mutex_init(&s->copies_lock, NULL);
    snprintf(s->name, sizeof(s->name), "the GPU");
    return s;
}

int vmaf_cuda_state_init(VmafCudaState **cu_state, VmafCudaConfiguration cfg)
{
    if (!cu_state) {
        vmaf_error("cuda: vmaf_cuda_state_init: the state pointer is NULL");
        return -EINVAL;
    }
    *cu_state = NULL;
    int count;
    int err = count_devices(&count);
    if (err)
        return err;
    struct VmafCudaState *s = state_alloc();
    if (!s)
        return -ENOMEM;
    DriverCalls d = { 0 };
    err = find_driver_calls(s, &d);
    if (!err)
        err = cfg.cu_ctx ? use_given_context(s, cfg.cu_ctx, &d)
                         : use_primary_context(s, count, &d);
    if (!err)
        err = read_device(s);
    if (!err) {
        *cu_state = s;
        return 0;
    }
    if (s->own_primary && s->primary_release)
        s->primary_release(s->cu_device);
    pthread_mutex_destroy(&s->copies_lock);
    free(s);
    return err;
}

void vmaf_cuda_state_ref(struct VmafCudaState *s)
{
    atomic_fetch_add(&s->refs, 1);
}

struct VmafTeam *vmaf_cuda_copy_team(struct VmafCudaState *s)
{
    pthread_mutex_lock(&s->copies_lock);
    if (!s->copy_team_tried) {
        s->copy_team_tried = true;
        const unsigned n = vmaf_team_default_members();
        const int err = vmaf_team_create(&s->copy_team, n);
        if (err)
            vmaf_warning("cuda: cannot start %u threads to copy host pictures (%s); copying "
                         "them in the caller's thread",
                         n - 1, strerror(-err));
        else
            vmaf_debug("cuda: host pictures are copied to pinned staging by %u threads", n);
    }
    pthread_mutex_unlock(&s->copies_lock);
    return s->copy_team;
}

void vmaf_cuda_state_free(struct VmafCudaState *s)
{
    if (!s || atomic_fetch_sub(&s->refs, 1) != 1)
        return;
    vmaf_team_destroy(s->copy_team);
    vmaf_cuda_host_copies_free(s);
    pthread_mutex_destroy(&s->copies_lock);
    if (s->own_primary)
        s->primary_release(s->cu_device);
    free(s);
}

int vmaf_cuda_import_state(VmafContext *vmaf, VmafCudaState *cu_state)
{
    if (!cu_state) {
        vmaf_error("cuda: vmaf_cuda_import_state needs a CUDA state from vmaf_cuda_state_init()");
        return -EINVAL;
    }
    /* The call takes the state on failure too (the API has no other way to
     * release it), except when it is this context's own already. */
    if (vmaf && vmaf->cuda == cu_state) {
        vmaf_error("cuda: this state is imported into the context already; import it once");
        return -EINVAL;
    }
    /* Nor when another context owns it: both would free it. It stays
     * with, and usable by, that first context. */
    if (atomic_exchange(&cu_state->imported, true)) {
        vmaf_error("cuda: this CUDA state belongs to another context already; create one "
                   "state per context with vmaf_cuda_state_init()");
        return -EINVAL;
    }
    int err = 0;
    if (!vmaf) {
        vmaf_error("cuda: vmaf_cuda_import_state needs a context from vmaf_init()");
        err = -EINVAL;
    } else if (vmaf->cuda) {
        vmaf_error("cuda: this context already has CUDA state; import one state once");
        err = -EINVAL;
    } else if (vmaf->started) {
        vmaf_error("cuda: import CUDA state before the first vmaf_read_pictures()");
        err = -EINVAL;
    }
    if (err) {
        vmaf_cuda_state_free(cu_state);
        return err;
    }
    vmaf->cuda = cu_state;
    return 0;
}
