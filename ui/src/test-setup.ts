// Shared vitest setup: a clean DOM after every test, and no canvas (jsdom has none;
// charts render nothing there and are checked through their configurations and e2e).
import { cleanup } from '@testing-library/preact';
import { afterEach } from 'vitest';

if (typeof HTMLCanvasElement !== 'undefined') {
  HTMLCanvasElement.prototype.getContext = (() => null) as typeof HTMLCanvasElement.prototype.getContext;
}

afterEach(() => {
  cleanup();
});
