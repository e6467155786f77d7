/** What every page reads: the settings, the API client, the realtime channel, the user and the objects they may read. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api } from './api';
import type { Live } from './live';
import type { StudioSettings } from './settings';
import type { ObjectSummary, User } from './types';

export interface Studio {
  settings: StudioSettings;
  api: Api;
  live: Live;
  /** Undefined when the service asks for no sign-in (no auth plugin) and none was made. */
  user?: User;
  /** The objects this user may read (GET {metadata}/objects answers only those), by name. */
  objects: Map<string, ObjectSummary>;
  /** A path under the console: href('/o/project') → '/studio/o/project'. */
  href(path: string): string;
  signOut(): Promise<void>;
  /** A message left for the next page (a new record's "Saved", shown once its page opens). */
  notes: Notes;
}

export class Notes {
  private readonly waiting = new Map<string, string>();

  leave(key: string, message: string): void {
    this.waiting.set(key, message);
  }

  take(key: string): string | undefined {
    const message = this.waiting.get(key);
    this.waiting.delete(key);
    return message;
  }
}

export const StudioContext = createContext<Studio | undefined>(undefined);

export function useStudio(): Studio {
  const studio = useContext(StudioContext);
  if (!studio) throw new Error('useStudio outside the Studio');
  return studio;
}
