/// <reference types="vitest/config" />
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The desktop UI. Tauri loads ui/dist (custom protocol) in release builds and the dev
// server on port 1420 in development; a plain browser gets the fake backend.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  clearScreen: false,
  oxc: {
    jsx: { runtime: 'automatic', importSource: 'preact' },
  },
  server: { port: 1420, strictPort: true },
  preview: { port: 4780, strictPort: true },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // WebKit of macOS 13 (Safari 16) and WebKitGTK 2.40 are the oldest engines Tauri 2 runs on.
    target: ['es2022', 'safari16'],
    chunkSizeWarningLimit: 400,
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test-setup.ts'],
    restoreMocks: true,
  },
});
