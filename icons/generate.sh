#!/usr/bin/env bash
# Regenerates every icon of the app from vector primitives with ImageMagick 6
# (apt-get install imagemagick): the app icon in the sizes Tauri 2 bundles (PNGs,
# icon.icns for macOS, icon.ico for Windows) and the monochrome tray images — a
# template for the macOS menu bar (black + alpha, tinted by the system for light and
# dark) and explicit light/dark variants for Linux and Windows trays. The outputs are
# committed; rerun this after changing a shape. PNG timestamps are stripped, so the
# same ImageMagick version writes the same bytes.
set -euo pipefail
cd "$(dirname "$0")"

# Debian's ImageMagick 6; an unrelated `convert` may come first on PATH.
IM=/usr/bin/convert-im6.q16
[ -x "$IM" ] || IM=$(command -v convert)
deterministic=(-strip -define png:exclude-chunks=date,time,tIME)

# The glyph: a nabla (∇, the loss gradient GGS descends) with an eye — artoo watching
# its own trajectory. Coordinates on a 1024 canvas.
nabla="polygon 300,330 724,330 512,716"

app_icon() {
  # macOS Big Sur grid: 824 px body on a 1024 canvas, corner radius ≈ 185.
  "$IM" -size 824x824 gradient:'#7D7AFF-#0A5CFF' -alpha set \
    \( -size 824x824 xc:none -fill white -draw "roundrectangle 0,0 823,823 185,185" \) \
    -compose DstIn -composite -compose over \
    -background none -gravity center -extent 1024x1024 \
    \( -size 1024x1024 xc:none -fill none -stroke 'rgba(0,0,0,0.18)' -strokewidth 70 \
       -draw "stroke-linejoin round $nabla" -blur 0x14 -geometry +0+14 \) -compose over -composite \
    \( -size 1024x1024 xc:none -fill none -stroke white -strokewidth 70 \
       -draw "stroke-linejoin round $nabla" \
       -fill white -stroke none -draw "circle 512,470 512,515" \) -compose over -composite \
    "${deterministic[@]}" app-1024.png
}

tray_glyph() { # size color out
  local size=$1 color=$2 out=$3
  "$IM" -size 1024x1024 xc:none -fill none -stroke "$color" -strokewidth 96 \
    -draw "stroke-linejoin round polygon 170,230 854,230 512,860" \
    -fill "$color" -stroke none -draw "circle 512,440 512,512" \
    -resize "${size}x${size}" "${deterministic[@]}" "$out"
}

app_icon
for s in 16 24 32 48 64 128 256 512; do
  "$IM" app-1024.png -resize "${s}x${s}" "${deterministic[@]}" "app-$s.png"
done

cp app-32.png 32x32.png
cp app-64.png 64x64.png
cp app-128.png 128x128.png
cp app-256.png 128x128@2x.png
cp app-512.png icon.png

"$IM" app-16.png app-24.png app-32.png app-48.png app-64.png app-256.png icon.ico

# icon.icns: PNG payloads in the chunk types macOS reads (16…1024, @1x and @2x).
python3 - <<'PY'
import struct
chunks = [("icp4", 16), ("icp5", 32), ("icp6", 64), ("ic07", 128), ("ic08", 256),
          ("ic09", 512), ("ic10", 1024), ("ic11", 32), ("ic12", 64), ("ic13", 256), ("ic14", 512)]
body = b""
for kind, size in chunks:
    data = open(f"app-{size}.png", "rb").read()
    body += kind.encode() + struct.pack(">I", len(data) + 8) + data
open("icon.icns", "wb").write(b"icns" + struct.pack(">I", len(body) + 8) + body)
PY

mkdir -p tray
tray_glyph 22 black tray/trayTemplate.png
tray_glyph 44 black tray/trayTemplate@2x.png
tray_glyph 32 black tray/tray-light.png
tray_glyph 64 black tray/tray-light@2x.png
tray_glyph 32 white tray/tray-dark.png
tray_glyph 64 white tray/tray-dark@2x.png

# The browser preview's menu bar and favicon.
cp tray/trayTemplate@2x.png ../ui/public/tray.png
cp app-64.png ../ui/public/favicon.png

rm -f app-16.png app-24.png app-32.png app-48.png app-64.png app-128.png app-256.png app-512.png
mv app-1024.png icon-1024.png
