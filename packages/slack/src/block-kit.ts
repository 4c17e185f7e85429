import type { KnownBlock } from '@slack/types';

/**
 * The Block Kit pieces Pullwright's Slack messages are built from (the channel and thread
 * messages in slack-messages.ts, the review and deploy ones in slack-review-messages.ts).
 */

export function section(text: string): KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text } };
}

/** A Block Kit button whose value names what it acts on (the operation, and for approvals the head sha). */
export function actionButton(action_id: string, text: string, value: string, style?: 'primary' | 'danger') {
  return {
    type: 'button' as const,
    action_id,
    text: { type: 'plain_text' as const, text },
    value,
    ...(style ? { style } : {}),
  };
}

/** Slack's "are you sure?" on a button that cannot be undone. */
export function confirmDialog(title: string, text: string, confirm: string, deny = 'Keep') {
  return {
    title: { type: 'plain_text' as const, text: title },
    text: { type: 'plain_text' as const, text },
    confirm: { type: 'plain_text' as const, text: confirm },
    deny: { type: 'plain_text' as const, text: deny },
  };
}
