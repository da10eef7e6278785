/*
 * CUDA backend: device context, the public libvmaf_cuda.h API and the
 * preallocated picture pool.
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
#include "picture_internal.h"
#include "picture_pool.h"
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

int vmaf_cuda_state_init(VmafCudaState **cu_state, VmafCudaConfiguration cfg)
{
    if (!cu_state) {
        vmaf_error("cuda: vmaf_cuda_state_init: the state pointer is NULL");
        return -EINVAL;
    }
    *cu_state = NULL;

    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count <= 0) {
        (void)vmaf_cuda_errno(e);
        /* A warning, not an error: probing for a GPU and finding none is
         * normal (the CLI's --backend auto, FFmpeg builds on CPU hosts).
         * cudart reports a missing driver as one too old for it: say which
         * it is, since "update the driver" is the wrong advice for a
         * machine that has none. */
        if (e == cudaErrorInsufficientDriver && !driver_installed())
            vmaf_warning("cuda: no usable CUDA device (no NVIDIA driver: libcuda.so.1 cannot "
                         "be loaded)");
        else
            vmaf_warning("cuda: no usable CUDA device (%s)",
                         e != cudaSuccess ? cudaGetErrorString(e) : "no device found");
        return -ENODEV;
    }

    struct VmafCudaState *s = calloc(1, sizeof(*s));
    if (!s) {
        vmaf_error("cuda: out of memory allocating the CUDA state");
        return -ENOMEM;
    }
    atomic_init(&s->refs, 1);
    atomic_init(&s->imported, false);
    atomic_init(&s->lost, false);
    atomic_init(&s->reported, (int)cudaSuccess);
    pthread_mutex_init(&s->copies_lock, NULL);
    snprintf(s->name, sizeof(s->name), "the GPU");

    VmafCuCtxGetDevice get_device = NULL;
    VmafCuDevicePrimaryCtxRetain retain = NULL;
    VmafCuDeviceGet device_get = NULL;
    int err = entry_point("cuCtxPushCurrent", (void **)&s->push);
    if (!err)
        err = entry_point("cuCtxPopCurrent", (void **)&s->pop);
    if (!err)
        err = entry_point("cuCtxGetDevice", (void **)&get_device);
    if (!err)
        err = entry_point("cuDevicePrimaryCtxRetain", (void **)&retain);
    if (!err)
        err = entry_point("cuDevicePrimaryCtxRelease", (void **)&s->primary_release);
    if (!err)
        err = entry_point("cuDeviceGet", (void **)&device_get);
    if (err)
        goto fail;

    if (cfg.cu_ctx) {
        s->ctx = cfg.cu_ctx;
        if (s->push(s->ctx)) {
            vmaf_error("cuda: the CUcontext given in VmafCudaConfiguration cannot be made "
                       "current; pass a live context or NULL for the primary context");
            err = -EINVAL;
            goto fail;
        }
        int r = get_device(&s->cu_device);
        vmaf_cuda_leave(s);
        if (r) {
            vmaf_error("cuda: cannot query the device of the given CUcontext (driver error %d)",
                       r);
            err = -EIO;
            goto fail;
        }
        /* The runtime ordinal equals the driver ordinal of the same process. */
        s->device = s->cu_device;
    } else {
        err = wanted_device(count, &s->device);
        if (err)
            goto fail;
        int r = device_get(&s->cu_device, s->device);
        if (!r)
            r = retain(&s->ctx, s->cu_device);
        if (r) {
            vmaf_error("cuda: cannot open the primary context of device %d (driver error %d)",
                       s->device, r);
            err = -ENODEV;
            goto fail;
        }
        s->own_primary = true;
    }

    struct cudaDeviceProp prop;
    err = vmaf_cuda_enter(s);
    if (err)
        goto fail;
    e = cudaGetDeviceProperties(&prop, s->device);
    vmaf_cuda_leave(s);
    if (e != cudaSuccess) {
        vmaf_error("cuda: cannot read the properties of device %d: %s", s->device,
                   cudaGetErrorString(e));
        err = vmaf_cuda_errno(e);
        goto fail;
    }
    snprintf(s->name, sizeof(s->name), "device %d (%s)", s->device, prop.name);
    s->sm_count = prop.multiProcessorCount;
    err = check_kernels(s, prop.major, prop.minor);
    if (err)
        goto fail;
    vmaf_info("cuda: using %s, compute capability %d.%d", s->name, prop.major, prop.minor);
    *cu_state = s;
    return 0;

fail:
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

static void free_copies(struct VmafCudaHostCopy *c, bool pinned);

void vmaf_cuda_state_free(struct VmafCudaState *s)
{
    if (!s || atomic_fetch_sub(&s->refs, 1) != 1)
        return;
    vmaf_team_destroy(s->copy_team);
    /* Copies still referenced hold the state: these are all there are. */
    if (s->free_copies) {
        if (!vmaf_cuda_enter_teardown(s)) {
            free_copies(s->free_copies, true);
            vmaf_cuda_leave(s);
        } else {
            /* The context cannot be made current (its owner destroyed
             * it, which freed the pinned memory allocated in it): only
             * the bookkeeping is left. */
            free_copies(s->free_copies, false);
        }
    }
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

/* ---- device pictures ------------------------------------------------------- */

/* Pinned memory for the luma of a device picture that CPU extractors read.
 * A copy holds a reference to the state and goes back to the state's free
 * list when its picture's last reference goes, so a run allocates as many
 * copies as there are frames in flight, once. */
typedef struct VmafCudaHostCopy {
    struct VmafCudaHostCopy *next;
    struct VmafCudaState *s;
    size_t bytes;
    void *mem;
} HostCopy;

static void keep_copy(struct VmafCudaState *s, HostCopy *c)
{
    pthread_mutex_lock(&s->copies_lock);
    c->next = s->free_copies;
    s->free_copies = c;
    pthread_mutex_unlock(&s->copies_lock);
}

static void host_copy_release(void *cookie, VmafPicture *pic)
{
    (void)pic;
    HostCopy *c = cookie;
    struct VmafCudaState *s = c->s;
    keep_copy(s, c);
    vmaf_cuda_state_free(s); /* the reference the copy held */
}

/* Frees a list of copies, with their pinned memory when `pinned` (the
 * state's context is then current). */
static void free_copies(HostCopy *c, bool pinned)
{
    while (c) {
        HostCopy *next = c->next;
        if (pinned)
            (void)vmaf_cuda_errno(cudaFreeHost(c->mem));
        free(c);
        c = next;
    }
}

/* A kept copy of `bytes`, else a new one; kept copies of another size (an
 * earlier geometry) are freed. The context is current. */
static int take_copy(struct VmafCudaState *s, size_t bytes, unsigned index, HostCopy **out)
{
    HostCopy *c = NULL, *stale = NULL;
    pthread_mutex_lock(&s->copies_lock);
    while (s->free_copies && !c) {
        HostCopy *k = s->free_copies;
        s->free_copies = k->next;
        if (k->bytes == bytes) {
            c = k;
        } else {
            k->next = stale;
            stale = k;
        }
    }
    pthread_mutex_unlock(&s->copies_lock);
    free_copies(stale, true);
    if (!c) {
        c = calloc(1, sizeof(*c));
        if (!c) {
            vmaf_error("cuda: frame %u: out of memory for a host copy of a device picture",
                       index);
            return -ENOMEM;
        }
        const cudaError_t e = cudaHostAlloc(&c->mem, bytes, cudaHostAllocDefault);
        if (e != cudaSuccess) {
            if (vmaf_cuda_report(s, e))
                vmaf_error("cuda: frame %u: cannot allocate %zu bytes of pinned host memory "
                           "for a copy of a device picture: %s",
                           index, bytes, cudaGetErrorString(e));
            free(c);
            return vmaf_cuda_errno(e);
        }
        c->s = s;
        c->bytes = bytes;
        pthread_mutex_lock(&s->copies_lock);
        s->copies_made++;
        pthread_mutex_unlock(&s->copies_lock);
    }
    *out = c;
    return 0;
}

int vmaf_cuda_download_luma(struct VmafCudaState *s, const VmafPicture *dev, VmafPicture *host,
                            unsigned index)
{
    /* Every failure below logs one line with the frame: the caller adds
     * none of its own. */
    if (!s || !dev || !host || !dev->data[0]) {
        vmaf_error("cuda: frame %u: no device picture to copy to the host", index);
        return -EINVAL;
    }
    /* Luma only, as a 4:0:0 picture in the layout of vmaf_picture_alloc():
     * every CPU extractor reads luma alone, and pinned memory for chroma
     * nobody copies or reads would be wasted, up to a few copies a worker
     * thread. */
    unsigned pw[3], ph[3], planes;
    int err = vmaf_picture_plane_geometry(VMAF_PIX_FMT_YUV400P, dev->w[0], dev->h[0], pw, ph,
                                          &planes);
    if (err) {
        vmaf_error("cuda: frame %u: a %ux%u device picture has no valid plane layout", index,
                   dev->w[0], dev->h[0]);
        return err;
    }
    size_t stride[3], offset[3];
    const size_t total = vmaf_picture_plane_layout(planes, pw, ph, dev->bpc,
                                                   VMAF_PICTURE_ROW_ALIGN, stride, offset);
    const size_t sample = dev->bpc > 8 ? 2 : 1;
    err = vmaf_cuda_enter_for(s, "cuda", index);
    if (err)
        return err;
    HostCopy *c = NULL;
    err = take_copy(s, total, index, &c);
    if (err) {
        vmaf_cuda_leave(s);
        return err;
    }
    const cudaError_t e = cudaMemcpy2D(c->mem, stride[0], dev->data[0], (size_t)dev->stride[0],
                                       (size_t)dev->w[0] * sample, dev->h[0],
                                       cudaMemcpyDeviceToHost);
    vmaf_cuda_leave(s);
    if (e != cudaSuccess) {
        if (vmaf_cuda_report(s, e))
            vmaf_error("cuda: frame %u: copying the luma of a %ux%u device picture to the "
                       "host failed: %s",
                       index, dev->w[0], dev->h[0], cudaGetErrorString(e));
        keep_copy(s, c);
        return vmaf_cuda_errno(e);
    }
    err = vmaf_picture_wrap(host, VMAF_PIX_FMT_YUV400P, dev->bpc, dev->w[0], dev->h[0],
                            VMAF_PICTURE_BUF_HOST_PINNED, c->mem, total, host_copy_release, c);
    if (err) {
        /* vmaf_picture_wrap() said why (its only failure here is memory). */
        keep_copy(s, c);
        return err;
    }
    vmaf_cuda_state_ref(s);
    for (unsigned i = 0; i < planes; i++) {
        host->data[i] = (char *)c->mem + offset[i];
        host->stride[i] = (ptrdiff_t)stride[i];
    }
    return 0;
}

unsigned vmaf_cuda_host_copies_made(struct VmafCudaState *s)
{
    pthread_mutex_lock(&s->copies_lock);
    const unsigned n = s->copies_made;
    pthread_mutex_unlock(&s->copies_lock);
    return n;
}

/* ---- preallocated picture pool ------------------------------------------- */

/* The pool's memory: device, pinned or host blocks, made and freed in the
 * state's context. */
typedef struct PoolMemory {
    struct VmafCudaState *cu;
    enum VmafCudaPicturePreallocationMethod method;
} PoolMemory;

static void *pool_alloc(void *opaque, size_t size, unsigned i, unsigned n, int *err, char *why,
                        size_t why_len)
{
    (void)i, (void)n;
    const PoolMemory *pm = opaque;
    if (pm->method == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST) {
        /* 256-byte rows suit both coalesced device reads and aligned copies. */
        void *m = aligned_alloc(256, (size + 255) / 256 * 256);
        *err = -ENOMEM;
        snprintf(why, why_len, "out of host memory");
        return m;
    }
    if ((*err = vmaf_cuda_enter(pm->cu))) {
        snprintf(why, why_len, "the CUDA context cannot be made current");
        return NULL;
    }
    void *m = NULL;
    const cudaError_t ce = pm->method == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE
                               ? cudaMalloc(&m, size)
                               : cudaHostAlloc(&m, size, cudaHostAllocPortable);
    if (ce != cudaSuccess) {
        snprintf(why, why_len, "%s memory: %s",
                 pm->method == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE ? "device"
                                                                             : "pinned",
                 cudaGetErrorString(ce));
        /* -ENOMEM when out of memory, -ENODEV or -EIO when the device
         * failed otherwise (and the error is consumed). */
        *err = vmaf_cuda_errno(ce);
        m = NULL;
    }
    vmaf_cuda_leave(pm->cu);
    return m;
}

static void pool_release(void *opaque, void *const *blocks, unsigned n)
{
    PoolMemory *pm = opaque;
    /* Device and pinned memory are freed in the state's context. When it
     * cannot be made current, it is gone (its owner destroyed it, which
     * freed every allocation made in it): nothing is left to free but host
     * memory. */
    const bool host = pm->method == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST;
    const bool entered = !host && !vmaf_cuda_enter_teardown(pm->cu);
    for (unsigned i = 0; i < n; i++) {
        if (!blocks[i])
            continue;
        if (host)
            free(blocks[i]);
        else if (entered && pm->method == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE)
            (void)vmaf_cuda_errno(cudaFree(blocks[i]));
        else if (entered)
            (void)vmaf_cuda_errno(cudaFreeHost(blocks[i]));
    }
    if (entered)
        vmaf_cuda_leave(pm->cu);
    vmaf_cuda_state_free(pm->cu);
    free(pm);
}

int vmaf_cuda_preallocate_pictures(VmafContext *vmaf, VmafCudaPictureConfiguration cfg)
{
    if (!vmaf || !vmaf->cuda) {
        vmaf_error("cuda: vmaf_cuda_preallocate_pictures needs a context with imported CUDA "
                   "state (vmaf_cuda_import_state)");
        return -EINVAL;
    }
    if (vmaf->cuda_pool) {
        vmaf_error("cuda: pictures were preallocated already for this context");
        return -EINVAL;
    }
    const enum VmafCudaPicturePreallocationMethod m = cfg.pic_prealloc_method;
    if (m == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE)
        return 0;
    if (m != VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE &&
        m != VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST &&
        m != VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED) {
        vmaf_error("cuda: unknown picture preallocation method %d", (int)m);
        return -EINVAL;
    }
    PoolMemory *pm = calloc(1, sizeof(*pm));
    if (!pm) {
        vmaf_error("cuda: out of memory allocating the picture pool");
        return -ENOMEM;
    }
    pm->cu = vmaf->cuda;
    pm->method = m;
    vmaf_cuda_state_ref(pm->cu); /* the pool may outlive the context */
    const VmafPicturePoolMemory mem = {
        .buf_type = m == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE ? VMAF_PICTURE_BUF_DEVICE
                    : m == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED
                        ? VMAF_PICTURE_BUF_HOST_PINNED
                        : VMAF_PICTURE_BUF_HOST,
        .alloc = pool_alloc,
        .release = pool_release,
        .opaque = pm,
    };
    const int err = vmaf_picture_pool_create(&vmaf->cuda_pool, &mem, cfg.pic_params.pix_fmt,
                                             cfg.pic_params.bpc, cfg.pic_params.w,
                                             cfg.pic_params.h, VMAF_CUDA_POOL_PICTURES, 256,
                                             vmaf_context_serial(vmaf), "cuda");
    /* A pool that was made owns pm; one that failed released it. */
    return err;
}

int vmaf_cuda_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic)
{
    if (!vmaf || !pic || !vmaf->cuda_pool) {
        vmaf_error("cuda: no preallocated pictures; call vmaf_cuda_preallocate_pictures "
                   "first");
        return -EINVAL;
    }
    return vmaf_picture_pool_fetch(vmaf->cuda_pool, pic, vmaf_context_drain, vmaf);
}
