import type { FeatureRequest } from '@pullwright/core';
import type { Runtime } from '@pullwright/pipeline';
import { eventually } from '@pullwright/testing/eventually';

/** Polls the feature request until `done` holds (its analysis runs in a worker). */
export function waitForFeatureRequest(
  sys: { runtime: Pick<Runtime, 'features'> },
  id: string,
  done: (request: FeatureRequest) => boolean,
): Promise<FeatureRequest> {
  let last: FeatureRequest | undefined;
  return eventually(
    () => `feature request ${id} is done (it is ${last?.status})`,
    async () => {
      last = await sys.runtime.features.get(id);
      return done(last) ? last : undefined;
    },
  );
}
