import { describe, expect, it } from 'vitest';
import { checkEventData, eventType, OperationEventData, OperationEventType, readEvent } from './operation-event.ts';

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
    ['evidence', { reproduced: true }, false],
  ] as const)('checks %s data %j (valid: %s)', (type, data, valid) => {
    expect(OperationEventData[type].safeParse(data).success).toBe(valid);
  });

  it('refuses, before writing, data that does not fit, a field the schema does not name, and an unknown type', () => {
    expect(() => checkEventData('risk', { level: 'low', reasons: [] })).not.toThrow();
    expect(() => checkEventData('risk', { level: 'dire', reasons: [] })).toThrow(
      /event "risk" does not fit its schema/,
    );
    expect(() => checkEventData('risk', { level: 'low', reasons: [], score: 3 })).toThrow(
      'event "risk" carries fields its schema does not name: score',
    );
    expect(() => checkEventData('sideways', {})).toThrow('event type "sideways" is not in the vocabulary');
  });

  it('reads a stored event typed, or not at all when its data does not fit', () => {
    const stored = { id: '1-0', ts: 't', opId: 'op1', type: eventType('risk') };
    expect(readEvent({ ...stored, data: { level: 'low', reasons: ['small'] } })?.data).toEqual({
      level: 'low',
      reasons: ['small'],
    });
    expect(readEvent({ ...stored, data: { level: 'dire' } })).toBeUndefined();
    expect(readEvent({ ...stored, type: eventType('newer'), data: {} })).toBeUndefined();
  });
});
