/**
 * Profile cards for users, backed by the users API.
 */
import React, { useEffect, useState } from 'react';
import type { User, UserId } from '../api';
import { getClient, renameUser } from '../index';

/** Props of {@link UserCard}. */
export interface UserCardProps {
  userId: UserId;
  /** Called after the user was renamed. */
  onRenamed?: (user: User) => void;
}

/** A red banner showing an error message. */
export const ErrorBanner = ({ message }: { message: string }) => (
  <div role="alert" className="error">
    {message}
  </div>
);

/** Shows one user, loaded from the API, with a button to rename them. */
export default function UserCard({ userId, onRenamed }: UserCardProps) {
  const [user, setUser] = useState<User | null>(null);
  const [error, setError] = useState<string>();

  useEffect(() => {
    getClient()
      .getUser(userId)
      .then(setUser)
      .catch((err: Error) => setError(err.message));
  }, [userId]);

  /** Prompts for a new name and saves it. */
  const handleRename = async () => {
    const name = window.prompt('New name', user?.Name ?? '');
    if (!name) {
      return;
    }
    const updated = await renameUser(userId, name);
    setUser(updated);
    onRenamed?.(updated);
  };

  if (error) {
    return <ErrorBanner message={error} />;
  }
  if (!user) {
    return <p className="loading">Loading…</p>;
  }
  return (
    <div className="user-card">
      <h2>{user.Name}</h2>
      <a href={`mailto:${user.Email}`}>{user.Email}</a>
      <button onClick={handleRename}>Rename</button>
    </div>
  );
}

interface UserListProps {
  ids: UserId[];
}

interface UserListState {
  names: Record<UserId, string>;
}

/** Lists users by name; a class component kept for the admin page. */
export class UserList extends React.Component<UserListProps, UserListState> {
  state: UserListState = { names: {} };

  componentDidMount(): void {
    void this.load();
  }

  /** Fetches the name of every listed user. */
  async load(): Promise<void> {
    const names: Record<UserId, string> = {};
    for (const id of this.props.ids) {
      const user = await getClient().getUser(id);
      names[id] = user.Name;
    }
    this.setState({ names });
  }

  /** Reloads the names, for the refresh button. */
  handleRefresh = () => {
    this.setState({ names: {} }, () => this.load());
  };

  render() {
    return (
      <div>
        <button onClick={this.handleRefresh}>Refresh</button>
        <ul>
          {this.props.ids.map((id) => (
            <li key={id}>{this.state.names[id] ?? id}</li>
          ))}
        </ul>
      </div>
    );
  }
}
