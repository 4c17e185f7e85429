import { describe, expect, it } from 'vitest';
import { eventType, OperationEventData, OperationEventType } from './operation-event.ts';

describe('the operation event vocabulary', () => {
  it('knows every type it has a schema for, and keeps an unknown stored type readable', () => {
    expect(OperationEventType.options).toEqual(Object.keys(OperationEventData));
    expect(eventType('revision')).toBe('revision');
    const future = eventType('from_a_newer_worker');
    expect(future).toBe('from_a_newer_worker');
    expect(OperationEventType.safeParse(future).success).toBe(false);
  });

  it.each([
    ['status', { to: 'running' }, true],
    ['status', { to: 'sideways' }, false],
    ['step', { step: 'push', headSha: 'abc' }, true],
    ['check', { name: 'test' }, false],
    ['revision', { state: 'pushed', requestId: 'r1', replies: [] }, true],
  ] as const)('checks %s data %j (valid: %s)', (type, data, valid) => {
    expect(OperationEventData[type].safeParse(data).success).toBe(valid);
  });
});
