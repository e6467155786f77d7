/**
 * The frame of every page: the header (the console's name, the user with their roles, sign-out),
 * the navigation — the `app` metadata's menus of objects when there are any, else every object
 * the user may read — with each object's record count, and the main region.
 */
import type { ComponentChildren } from 'preact';
import { useLocation } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import { useLoad } from '../hooks';
import { useStudio } from '../studio';
import type { AppEntry, ViewEntry } from '../types';

interface Menu {
  id: string;
  label: string;
  objects: string[];
}

function menusOf(apps: Array<{ id: string; content: AppEntry }>, readable: string[]): Menu[] {
  const menus = apps
    .map(({ id, content }) => ({ id, label: content.label ?? id, objects: (content.objects ?? []).filter((o) => readable.includes(o)) }))
    .filter((m) => m.objects.length);
  const listed = new Set(menus.flatMap((m) => m.objects));
  const rest = readable.filter((o) => !listed.has(o));
  if (rest.length) menus.push({ id: '', label: menus.length ? 'Other objects' : 'Objects', objects: rest });
  return menus;
}

export function Layout({ children }: { children: ComponentChildren }) {
  const studio = useStudio();
  const { path } = useLocation();
  const readable = [...studio.objects.keys()];
  const [nav] = useLoad(
    async () => ({
      apps: await studio.api.entries<AppEntry>('app'),
      views: await studio.api.entries<ViewEntry>('view'),
    }),
    [],
  );
  const [counts, setCounts] = useState<Record<string, number | undefined>>({});
  useEffect(() => {
    let current = true;
    for (const name of readable) {
      studio.api.count(name).then(
        (n) => current && setCounts((c) => ({ ...c, [name]: n })),
        () => undefined,
      );
    }
    return () => {
      current = false;
    };
  }, [studio.objects]);

  // Until the apps are known, no menu: the objects would otherwise jump from one list into the app's menus.
  const menus = nav.state === 'loading' ? [] : menusOf(nav.state === 'ready' ? nav.value.apps : [], readable);
  const views = nav.state === 'ready' ? nav.value.views : [];
  const link = (href: string, label: string, extra?: ComponentChildren) => {
    const target = studio.href(href);
    const current = path === target.split('?')[0] && (!href.includes('?') || location.search === `?${href.split('?')[1]}`);
    return (
      <a href={target} aria-current={current ? 'page' : undefined}>
        <span>{label}</span>
        {extra}
      </a>
    );
  };

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={studio.href('/')}>
          {studio.settings.title}
        </a>
        {studio.user ? (
          <div class="user">
            <span data-testid="user-name">{String(studio.user.name ?? studio.user.id)}</span>
            <span class="roles" data-testid="user-roles">
              {studio.user.roles.length ? studio.user.roles.join(', ') : 'no roles'}
            </span>
            <button type="button" onClick={() => void studio.signOut()}>
              Sign out
            </button>
          </div>
        ) : null}
      </header>
      <div class="frame">
        <nav aria-label="Objects" class="side">
          {menus.map((menu) => (
            <section key={menu.id || menu.label} aria-labelledby={`menu-${menu.id || 'rest'}`}>
              <h2 id={`menu-${menu.id || 'rest'}`}>{menu.label}</h2>
              <ul>
                {menu.objects.map((name) => {
                  const object = studio.objects.get(name);
                  const count = counts[name];
                  return (
                    <li key={name}>
                      {link(
                        `/o/${encodeURIComponent(name)}`,
                        object?.label ?? name,
                        count === undefined ? null : (
                          <span class="count" aria-label={`${count} records`}>
                            {count}
                          </span>
                        ),
                      )}
                      <ul>
                        {views
                          .filter((v) => v.content.object === name)
                          .map((v) => (
                            <li key={v.id}>
                              {link(`/o/${encodeURIComponent(name)}?view=${encodeURIComponent(v.id)}`, v.content.label ?? v.id)}
                            </li>
                          ))}
                      </ul>
                    </li>
                  );
                })}
              </ul>
            </section>
          ))}
          <ul class="meta-link">
            <li>{link('/meta', 'Metadata')}</li>
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          {children}
        </main>
      </div>
    </>
  );
}
