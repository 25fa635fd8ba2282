// The committed icons (icons/generate.sh) are what Tauri 2 bundles: the right sizes,
// with alpha, an icns with every macOS size, and a monochrome tray template.
// @vitest-environment node

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const ICONS = fileURLToPath(new URL('../../icons/', import.meta.url));

function png(name: string): { width: number; height: number; colorType: number } {
  const data = readFileSync(`${ICONS}${name}`);
  expect(data.subarray(1, 4).toString('ascii'), name).toBe('PNG');
  expect(data.subarray(12, 16).toString('ascii'), name).toBe('IHDR');
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20), colorType: data.readUInt8(25) };
}

describe('the app icons', () => {
  it('come in the sizes tauri.conf.json lists, square and with alpha', () => {
    const sizes: Record<string, number> = { '32x32.png': 32, '64x64.png': 64, '128x128.png': 128, '128x128@2x.png': 256, 'icon.png': 512, 'icon-1024.png': 1024 };
    for (const [name, size] of Object.entries(sizes)) {
      const p = png(name);
      expect([p.width, p.height], name).toEqual([size, size]);
      expect([4, 6], name).toContain(p.colorType);
    }
  });

  it('bundle every macOS size in icon.icns and several in icon.ico', () => {
    const icns = readFileSync(`${ICONS}icon.icns`);
    expect(icns.subarray(0, 4).toString('ascii')).toBe('icns');
    expect(icns.readUInt32BE(4)).toBe(icns.length);
    const kinds: string[] = [];
    for (let at = 8; at < icns.length; at += icns.readUInt32BE(at + 4)) kinds.push(icns.subarray(at, at + 4).toString('ascii'));
    expect(kinds).toEqual(['icp4', 'icp5', 'icp6', 'ic07', 'ic08', 'ic09', 'ic10', 'ic11', 'ic12', 'ic13', 'ic14']);
    const ico = readFileSync(`${ICONS}icon.ico`);
    expect(ico.readUInt16LE(2)).toBe(1);
    expect(ico.readUInt16LE(4)).toBe(6);
  });

  it('include a menu-bar template (22 pt, @1x and @2x) and light and dark tray variants', () => {
    expect(png('tray/trayTemplate.png')).toMatchObject({ width: 22, height: 22 });
    expect(png('tray/trayTemplate@2x.png')).toMatchObject({ width: 44, height: 44 });
    for (const variant of ['light', 'dark']) {
      expect(png(`tray/tray-${variant}.png`)).toMatchObject({ width: 32, height: 32 });
      expect(png(`tray/tray-${variant}@2x.png`)).toMatchObject({ width: 64, height: 64 });
    }
  });
});
