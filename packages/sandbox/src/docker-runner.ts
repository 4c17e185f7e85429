import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { PullwrightError } from '@pullwright/core';
import Docker from 'dockerode';
import type { CommandResult, CommandRunner, CommandSpec } from './command-runner.ts';
import { egressBridge } from './egress-bridge-command.ts';
import { gitReadOnlyPaths } from './git-read-only-paths.ts';
import { OutputBuffer } from './output-buffer.ts';
import { DEFAULT_MAX_OUTPUT_BYTES } from './process-runner.ts';
import { DEFAULT_RESOURCE_LIMITS, type ResourceLimits } from './resource-limits.ts';
import { safeEnv } from './safe-env.ts';
import { shellArgv } from './shell-argv.ts';

/*
 * Docker setup — for hosts with a Docker engine and no working bubblewrap (most hosted
 * container platforms).
 *
 * The worker needs the engine's API socket (`/var/run/docker.sock`, or DOCKER_HOST
 * semantics through `docker` options). That socket is root-equivalent on the host, so it
 * belongs to the worker only; the sandbox containers never get it. Bind mounts name paths
 * on the engine's host: a worker that itself runs in a container must keep WORKSPACE_DIR at
 * the same path on the host (e.g. `-v /srv/pullwright:/srv/pullwright`).
 *
 * The image (`image` option) must:
 *   - already be present on the engine: the runner never pulls, so a check cannot wait on
 *     (or be redirected to) a registry;
 *   - contain `bash` (commands run as `bash -eo pipefail -c`) and every toolchain the repos' checks use (node + npm, python,
 *     go…), installed system-wide, because the root filesystem is mounted read-only;
 *   - have a non-root user whose uid:gid matches `user` (default 1000:1000, the `node`
 *     user of the official node images) and owns the worktrees on the host, since the
 *     worktree is bind-mounted read-write at /workspace;
 *   - expect HOME=/tmp/home and a writable /tmp only (both tmpfs), so caches (npm, pip)
 *     start empty every run.
 * A minimal one for Node repos:
 *     FROM node:20-bookworm-slim
 *     RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
 *      && rm -rf /var/lib/apt/lists/*
 *     USER 1000:1000
 * built and loaded on every worker host (`docker build -t pullwright-sandbox:latest .`).
 * Each command runs in a fresh container: no network (`NetworkMode: none`; the install step
 * reaches the worker's egress proxy through its mounted socket, so the image needs `node`), no capabilities, no-new-privileges, pids/memory/cpu
 * limits, tini as pid 1 (`Init`) so orphans are reaped, removed afterwards whatever happens.
 */

/** Inside the container the worktree is always here, whatever its host path. */
const CONTAINER_WORKTREE = '/workspace';
const CONTAINER_HOME = '/tmp/home';
const TMPFS_OPTIONS = 'rw,exec,nosuid,nodev,mode=1777,size=536870912';
/** How long after the container's exit its remaining output may take to arrive. */
const LOG_DRAIN_MS = 60_000;

export interface DockerRunnerOptions {
  /** Image with the toolchains (see the setup notes above). */
  image: string;
  /** A configured dockerode client; default: the local socket. */
  docker?: Docker;
  /** uid:gid the command runs as; root is refused. Default `1000:1000`. */
  user?: string;
  /** Default {@link DEFAULT_RESOURCE_LIMITS}. */
  limits?: Partial<ResourceLimits>;
}

export class DockerRunner implements CommandRunner {
  readonly name: string = 'docker';
  readonly sandboxed: boolean = true;
  readonly docker: Docker;
  readonly image: string;
  readonly user: string;
  readonly limits: ResourceLimits;

  constructor(options: DockerRunnerOptions) {
    this.docker = options.docker ?? new Docker();
    this.image = options.image;
    this.user = options.user ?? '1000:1000';
    this.limits = { ...DEFAULT_RESOURCE_LIMITS, ...options.limits };
    if (/^(0|root)(:|$)/.test(this.user)) {
      throw new PullwrightError('config_invalid', 'the Docker sandbox must not run as root', { user: this.user });
    }
  }

  /** True when the engine answers; used to decide whether this runner can be picked. */
  async available(): Promise<boolean> {
    try {
      await this.docker.ping();
      return true;
    } catch {
      return false;
    }
  }

  /** The create-container body for one spec (the whole security posture is in HostConfig). */
  containerOptions(spec: CommandSpec): Docker.ContainerCreateOptions {
    const root = realpathSync(spec.root ?? spec.cwd);
    const cwd = realpathSync(spec.cwd);
    const rel = path.relative(root, cwd);
    if (rel.startsWith('..') || path.isAbsolute(rel)) {
      throw new PullwrightError('validation_failed', 'sandbox cwd must be inside its root', { cwd: spec.cwd, root });
    }
    // The host's PATH means nothing in the image; the image's own PATH applies.
    const { PATH: _hostPath, ...base } = safeEnv(CONTAINER_HOME);
    const env = { ...base, ...spec.env };
    const mounts: Docker.MountSettings[] = [
      { Type: 'bind', Source: root, Target: CONTAINER_WORKTREE, ReadOnly: spec.readOnlyRoot === true },
    ];
    // `.git` read-only at its place in the worktree; a linked worktree's gitdir and mirror at
    // their host paths, which is where its `.git` file points.
    for (const readOnly of gitReadOnlyPaths(root)) {
      const inTree = path.relative(root, readOnly);
      const target = inTree.startsWith('..') || path.isAbsolute(inTree) ? readOnly : `${CONTAINER_WORKTREE}/${inTree}`;
      mounts.push({ Type: 'bind', Source: readOnly, Target: target, ReadOnly: true });
    }
    // The install step: no network either, its one way out is the worker's egress proxy, whose
    // socket directory is mounted in beside the bridge the image's own `node` runs.
    const bridge = spec.egress ? egressBridge(spec.egress.socketDir, 'node') : undefined;
    for (const [host, inside] of bridge?.mounts ?? [])
      mounts.push({ Type: 'bind', Source: host, Target: inside, ReadOnly: true });
    return {
      name: `pullwright-sandbox-${randomBytes(6).toString('hex')}`,
      Image: this.image,
      Cmd: [...(bridge?.argv ?? []), ...shellArgv(spec.command)],
      Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
      User: this.user,
      WorkingDir: path.posix.join(CONTAINER_WORKTREE, ...rel.split(path.sep).filter(Boolean)),
      Tty: false,
      AttachStdin: false,
      OpenStdin: false,
      NetworkDisabled: true,
      Labels: { 'dev.pullwright.sandbox': 'true' },
      HostConfig: {
        NetworkMode: 'none',
        ReadonlyRootfs: true,
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
        PidsLimit: this.limits.pids,
        Memory: this.limits.memoryBytes,
        // Equal to Memory: no swap on top of the limit.
        MemorySwap: this.limits.memoryBytes,
        NanoCpus: Math.round(this.limits.cpus * 1e9),
        Init: true,
        Mounts: mounts,
        Tmpfs: { '/tmp': TMPFS_OPTIONS, [CONTAINER_HOME]: TMPFS_OPTIONS },
        // No file larger than the disk limit (the engine cannot meter the bind-mounted worktree).
        Ulimits: [
          { Name: 'core', Soft: 0, Hard: 0 },
          { Name: 'fsize', Soft: this.limits.diskBytes, Hard: this.limits.diskBytes },
        ],
        AutoRemove: false,
      },
    };
  }

  async run(spec: CommandSpec): Promise<CommandResult> {
    const started = performance.now();
    const output = new OutputBuffer(spec.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES);
    let killedBy: CommandResult['killedBy'] = spec.signal?.aborted ? 'abort' : undefined;
    let container: Docker.Container | undefined;
    let running = false;
    // A timeout or abort that comes while the container is created or started is recorded and
    // applied once it runs: the engine cannot kill a container that has not started.
    const kill = (reason: NonNullable<CommandResult['killedBy']>) => {
      killedBy ??= reason;
      if (!running) return;
      container?.kill({ signal: 'SIGKILL' }).catch(() => {
        // already stopped: the wait below returns either way
      });
    };
    const timer = setTimeout(() => kill('timeout'), spec.timeoutMs);
    const onAbort = () => kill('abort');
    spec.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      try {
        container = await this.docker.createContainer(this.containerOptions(spec));
      } catch (err) {
        throw this.#engineError('create', err);
      }
      let exitCode: number | null = null;
      if (!killedBy) {
        try {
          exitCode = await this.#runToEnd(container, output, () => {
            running = true;
            if (killedBy) kill(killedBy);
          });
        } catch (err) {
          throw this.#engineError('run', err);
        }
      }
      const result: CommandResult = {
        exitCode: killedBy ? null : exitCode,
        durationMs: Math.round(performance.now() - started),
        output: output.toString(),
        truncated: output.truncated,
      };
      if (killedBy) result.killedBy = killedBy;
      return result;
    } finally {
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
      await container?.remove({ force: true, v: true }).catch(() => {
        // force-remove of a gone container: nothing left to clean
      });
    }
  }

  /** Starts the container, collects its output and resolves with its exit status. */
  async #runToEnd(container: Docker.Container, output: OutputBuffer, onStarted: () => void): Promise<number> {
    await container.start();
    onStarted();
    const logs = await container.logs({ follow: true, stdout: true, stderr: true });
    const drained = new Promise<void>((resolve) => {
      logs
        .on('end', resolve)
        .on('close', resolve)
        .on('error', () => resolve());
    });
    this.docker.modem.demuxStream(logs, collect(output), collect(output));
    const { StatusCode } = (await container.wait()) as { StatusCode: number };
    // The engine ends the log stream once it has sent everything the container wrote, which can
    // come well after the exit: a 2 s bound lost 72 KB of a 1 MB output on two loaded cores.
    // Still bounded, for an engine that never ends the stream.
    await Promise.race([drained, new Promise((r) => setTimeout(r, LOG_DRAIN_MS).unref())]);
    return StatusCode;
  }

  #engineError(step: string, err: unknown): PullwrightError {
    const message = err instanceof Error ? err.message : String(err);
    return new PullwrightError('unavailable', `docker sandbox ${step} failed: ${message}`, { step }, { cause: err });
  }
}

function collect(output: OutputBuffer): Writable {
  const decoder = new StringDecoder('utf8');
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      output.push(decoder.write(chunk));
      done();
    },
    final(done) {
      output.push(decoder.end());
      done();
    },
  });
}
