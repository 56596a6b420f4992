package checkpoint

import "context"

// Hold takes the repository as an operation does and returns its release
// (for the tests of the cross-process lock).
func (r *Repo) Hold(ctx context.Context) (release func(), err error) {
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	return r.unlock, nil
}
