// Starting and stopping llmserve for the end-to-end tests: a child process on a free loopback port
// (--port 0), ready once it logs "listening on HOST:PORT".
import { spawn } from 'node:child_process';

// Resolves with { child, root } (root: http://host:port) once the server listens.
export function startLlmserve(binary, args, timeoutMs = 60000) {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['--host', '127.0.0.1', '--port', '0', ...args],
                        { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`llmserve did not start: ${stderr}`)),
                             timeoutMs);
    child.stderr.on('data', (data) => {
      stderr += data.toString();
      const m = stderr.match(/listening on ([\d.]+):(\d+)/);
      if (m) {
        clearTimeout(timer);
        resolve({ child, root: `http://${m[1]}:${m[2]}`, log: () => stderr });
      }
    });
    child.on('exit', (code) => reject(new Error(`llmserve exited ${code}: ${stderr}`)));
  });
}

export function stopLlmserve(server) {
  return new Promise((resolve) => {
    if (!server || server.child.exitCode !== null) return resolve();
    server.child.on('exit', resolve);
    server.child.kill('SIGTERM');
  });
}
