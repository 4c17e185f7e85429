// The Transcript tab: the model conversation, fetched each time the tab opens.
import { api } from './api.js';
import { button, fill, h, notice } from './dom.js';
import { renderTranscript, transcriptMissing } from './transcript-view.js';

/** @import { Operation } from '@pullwright/core' */

/**
 * @param {string} id
 * @param {() => Operation} op  The record as last read (a missing transcript is explained by it).
 */
export function transcriptPanel(id, op) {
  const element = h('div', { class: 'panel', id: 'panel-transcript', role: 'tabpanel', hidden: true });
  async function load() {
    fill(element, notice('loading', 'Loading the transcript…'));
    try {
      const text = await api('GET', `/v1/operations/${id}/transcript`);
      renderTranscript(element, String(text ?? ''), load);
    } catch (err) {
      if (err.status === 404) transcriptMissing(element, op());
      else fill(element, notice('error', 'The transcript could not be loaded', err.message, button('Try again', load)));
    }
  }
  return { element, load };
}
