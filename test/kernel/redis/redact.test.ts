/** Redis URLs and errors as they reach log lines and error messages: no password in them. */
import { expect } from 'chai';
import { loggableRedisError, redactRedisUrl } from '../../../kernel/redis';

describe('objectql/redis: redaction', () => {
  it('masks the password of user:password URLs, and of password-only ones', () => {
    expect(redactRedisUrl('redis://alice:s3cret@redis.example.com:6380/2')).to.equal('redis://alice:***@redis.example.com:6380/2');
    expect(redactRedisUrl('rediss://:s3cret@127.0.0.1:6379')).to.equal('rediss://:***@127.0.0.1:6379');
  });

  it('masks all of a password holding @ or escapes', () => {
    for (const url of ['redis://alice:p@ss@host:6379', 'redis://alice:p%40ss%2F@host:6379']) {
      expect(redactRedisUrl(url)).to.equal('redis://alice:***@host:6379');
    }
  });

  it('masks passwords given as query parameters, which ioredis reads too', () => {
    expect(redactRedisUrl('redis://host:6379/0?password=s3cret&sentinelPassword=other&family=6')).to.equal(
      'redis://host:6379/0?password=***&sentinelPassword=***&family=6',
    );
  });

  it('leaves a URL without a password as it is', () => {
    expect(redactRedisUrl('redis://127.0.0.1:6379')).to.equal('redis://127.0.0.1:6379');
    expect(redactRedisUrl('redis://alice@127.0.0.1:6379/1')).to.equal('redis://alice@127.0.0.1:6379/1');
  });

  it('masks all but the scheme of a URL that does not parse', () => {
    expect(redactRedisUrl('redis://alice:s3cret@host:99999')).to.equal('redis://***');
    expect(redactRedisUrl('alice:s3cret@host')).to.equal('***');
  });

  it('reduces an error to type, message and code, without the command it carries', () => {
    const err = Object.assign(new Error('WRONGPASS invalid username-password pair'), {
      code: 'WRONGPASS',
      command: { name: 'hello', args: ['3', 'AUTH', 'alice', 's3cret'] },
    });
    expect(loggableRedisError(err)).to.deep.equal({
      type: 'Error',
      message: 'WRONGPASS invalid username-password pair',
      code: 'WRONGPASS',
    });
    expect(loggableRedisError('down')).to.deep.equal({ type: 'string', message: 'down' });
  });
});
