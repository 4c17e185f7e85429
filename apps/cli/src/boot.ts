import { type Config, createLogger, type EnvIssue, type Logger, loadConfig, type ProcessRole } from '@pullwright/core';
import { createRuntime, type Runtime } from '@pullwright/pipeline';
import { Redactor } from '@pullwright/security';
import { deploySettingWarnings } from './deploy-setting-warnings.ts';
import { startTracing } from './start-tracing.ts';

interface Booted {
  config: Config;
  logger: Logger;
  runtime: Runtime;
  stopTracing: () => Promise<void>;
}

interface BootOptions {
  /** `api` builds no model or sandbox (the API, and operator commands that only read Redis). */
  runtimeRole?: ProcessRole;
  demo?: boolean;
  /** What the start checks found: logged once the logger exists. */
  warnings?: EnvIssue[];
}

/** The configuration for `role` (already checked by `checkStart`), the logger, then the runtime. */
export async function boot(env: NodeJS.ProcessEnv, role: ProcessRole, options: BootOptions = {}): Promise<Booted> {
  const config = loadConfig(env, role);
  const redactor = new Redactor({ secrets: config.secrets });
  const logger = createLogger({ level: config.logLevel, scrubber: redactor });
  const stopTracing = startTracing(config, role, logger);
  const runtimeRole = options.runtimeRole ?? role;
  const runtime = await createRuntime(config, logger, redactor, { role: runtimeRole, demo: options.demo ?? false });
  const warnings = [
    ...(options.warnings ?? []),
    ...(runtimeRole === 'api' ? [] : deploySettingWarnings(runtime.approvalPolicy.service.deploy, config, env)),
  ];
  for (const { variable, reason } of warnings) logger.warn({ variable }, `${variable}: ${reason}`);
  return { config, logger, runtime, stopTracing };
}
