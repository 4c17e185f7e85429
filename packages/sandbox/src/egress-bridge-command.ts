import { fileURLToPath } from 'node:url';

/** The proxy's socket, by name, inside the directory a runner mounts. */
export const EGRESS_SOCKET_NAME = 'proxy.sock';

/** Where a runner mounts the egress proxy's socket directory and the bridge inside the sandbox. */
const SANDBOX_EGRESS_DIR = '/run/pullwright/egress';
const SANDBOX_EGRESS_BRIDGE = '/run/pullwright/egress-bridge.cjs';

/** The bridge script on the host (egress-bridge.cjs beside this file). */
const EGRESS_BRIDGE_FILE = fileURLToPath(new URL('./egress-bridge.cjs', import.meta.url));

/**
 * What a networked command needs in its sandbox: the proxy's socket directory and the bridge
 * (host path → sandbox path, both read-only), and the argv prefix that has `node` run the
 * bridge, which then runs the command behind it with the proxy variables set.
 */
export function egressBridge(socketDir: string, node: string): { mounts: [string, string][]; argv: string[] } {
  return {
    mounts: [
      [socketDir, SANDBOX_EGRESS_DIR],
      [EGRESS_BRIDGE_FILE, SANDBOX_EGRESS_BRIDGE],
    ],
    argv: [node, SANDBOX_EGRESS_BRIDGE, `${SANDBOX_EGRESS_DIR}/${EGRESS_SOCKET_NAME}`],
  };
}
