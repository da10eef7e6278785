# Sourced by the GPU-machine scripts: when pkg-config has no jansson there,
# unpack the Debian packages carried in .deb/ and point the build at them.
if ! pkg-config --exists jansson 2>/dev/null && ls .deb/libjansson*.deb >/dev/null 2>&1; then
    J=/tmp/vmaf_gpu_jansson
    rm -rf "$J"
    for f in .deb/libjansson*.deb; do dpkg -x "$f" "$J"; done
    PC="$J/usr/lib/x86_64-linux-gnu/pkgconfig"
    sed -i "s|^prefix=.*|prefix=$J/usr|" "$PC/jansson.pc"
    export PKG_CONFIG_PATH="$PC:${PKG_CONFIG_PATH:-}"
    export LIBRARY_PATH="$J/usr/lib/x86_64-linux-gnu:${LIBRARY_PATH:-}"
    export LD_LIBRARY_PATH="$J/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
fi
