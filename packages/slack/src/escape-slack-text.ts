/**
 * Slack reads `<…>` as links and mentions (`<!channel>` pings everyone) and `&` as an
 * entity: user and model text is escaped so it shows as written and pings nobody.
 */
export function escapeSlackText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
