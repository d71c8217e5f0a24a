// A real forward proxy for the proxy tests: Debian's tinyproxy, started on 127.0.0.1 with a config of its
// own in a temporary folder, never a system service. .ci/run installs it as it installs chromium.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { unusedPort } from './hostile-servers.js';
import { scratchDir } from './scratch.js';

export const TINYPROXY = '/usr/bin/tinyproxy';

/**
 * Why the tinyproxy tests cannot run here, or undefined when they can. Under CI a missing binary is not
 * a reason to skip: the tests run and fail, so a green CI always means they ran.
 */
export function tinyproxyMissing(): string | undefined {
  if (existsSync(TINYPROXY) || process.env.CI) return undefined;
  return `${TINYPROXY} is missing: apt-get install -y --no-install-recommends tinyproxy`;
}

export interface TinyproxySettings {
  /** The one user BasicAuth lets through. */
  user: string;
  password: string;
  /** Ports CONNECT may open tunnels to; tinyproxy refuses every other with 403. */
  connectPorts: readonly number[];
}

export interface RunningTinyproxy {
  /** http://127.0.0.1:<port>, without credentials. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** How long tinyproxy may take to listen; it usually does within a few milliseconds. */
const STARTUP_MS = 10_000;

/** Starts tinyproxy in the foreground on a free loopback port, requiring the given user and password. */
export async function startTinyproxy(settings: TinyproxySettings): Promise<RunningTinyproxy> {
  if (!existsSync(TINYPROXY)) {
    throw new Error(`${TINYPROXY} is missing; install Debian's tinyproxy (apt-get update && apt-get install -y --no-install-recommends tinyproxy), as .ci/run does`);
  }
  // The free port is taken from the OS and released before tinyproxy binds it: another process may win
  // it in between, so a start that does not listen is tried again on another port.
  for (let attempt = 1; ; attempt++) {
    const port = await unusedPort();
    const child = spawn(TINYPROXY, ['-d', '-c', writeConfig(port, settings)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    if (await listening(port, child)) return { url: `http://127.0.0.1:${port}`, port, stop: () => stopChild(child) };
    await stopChild(child);
    if (attempt === 3) throw new Error(`tinyproxy did not listen on 127.0.0.1:${port}: ${stderr.trim() || 'no message'}`);
  }
}

function writeConfig(port: number, settings: TinyproxySettings): string {
  const file = join(scratchDir('petstore-tinyproxy-'), 'tinyproxy.conf');
  writeFileSync(file, [
    `Port ${port}`,
    'Listen 127.0.0.1',
    'Timeout 30',
    'MaxClients 64',
    'Allow 127.0.0.1',
    `BasicAuth ${settings.user} ${settings.password}`,
    ...settings.connectPorts.map((connectPort) => `ConnectPort ${connectPort}`),
    'LogLevel Critical',
    '',
  ].join('\n'));
  return file;
}

/** Whether the port accepts a connection before the deadline, polled while the child lives. */
async function listening(port: number, child: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + STARTUP_MS;
  while (Date.now() < deadline && child.exitCode === null) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => { socket.destroy(); resolve(true); });
      socket.once('error', () => resolve(false));
    });
    if (open) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
