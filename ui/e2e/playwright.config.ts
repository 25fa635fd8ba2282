// End-to-end tests of the built UI (ui/dist, served by `vite preview`) over the fake
// backend, in Debian's Chromium driven by Playwright. Screenshots go to
// target/ui-screenshots/ (kept by CI as artifacts).

import { fileURLToPath } from 'node:url';

import { defineConfig } from '@playwright/test';

const root = fileURLToPath(new URL('../..', import.meta.url));
const port = 4780;

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  outputDir: `${root}/target/ui-e2e-results`,
  timeout: 90_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    viewport: { width: 1280, height: 840 },
    deviceScaleFactor: 2,
    locale: 'en-US',
    timezoneId: 'Europe/Paris',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  webServer: {
    command: `npx vite preview --config ui/vite.config.ts --host 127.0.0.1 --port ${port} --strictPort`,
    cwd: root,
    url: `http://127.0.0.1:${port}/`,
    reuseExistingServer: false,
    timeout: 60_000,
  },
});
