// Mounts the window; everything else lives in app/.
import { mountApp } from './app/mount';

const root = document.getElementById('app');
if (root) void mountApp(root, window.location);
