/** What the page tells the app (plugins/studio/page.ts): its path and where the service's APIs are. */
export interface StudioSettings {
  title: string;
  /** The console's path, e.g. '/studio'. */
  base: string;
  api: {
    rpc: string;
    data: string;
    metadata: string;
    files?: string;
    realtime?: string;
    session?: string;
    /** Whether the auth plugin is enabled (then a sign-in is needed for anything it protects). */
    auth: boolean;
  };
}

export function readSettings(): StudioSettings {
  const element = document.getElementById('studio-settings');
  if (!element?.textContent) throw new Error('Studio: the page carries no settings');
  return JSON.parse(element.textContent) as StudioSettings;
}
