"""conversations: inbound messages linked into threads, drafts keep the context they were drafted from

Revision ID: 0004_conversations
Revises: 0003_gate_outcome
Create Date: 2026-11-23 21:30:00.000000

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision: str = '0004_conversations'
down_revision: Union[str, Sequence[str], None] = '0003_gate_outcome'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def _columns(table: str) -> set[str]:
    return {c["name"] for c in sa.inspect(op.get_bind()).get_columns(table)}


def upgrade() -> None:
    """Upgrade schema (columns a pre-migration database made from the current models already has are left as they are)."""
    have = _columns('inbound_message')
    if 'conversation_id' not in have:
        with op.batch_alter_table('inbound_message', schema=None) as batch_op:
            batch_op.add_column(sa.Column('conversation_id', sa.Integer(), nullable=True))
            batch_op.add_column(sa.Column('follows_id', sa.Integer(), nullable=True))
            batch_op.create_index(batch_op.f('ix_inbound_message_conversation_id'), ['conversation_id'], unique=False)
    if 'context' not in _columns('draft'):
        with op.batch_alter_table('draft', schema=None) as batch_op:
            batch_op.add_column(sa.Column('context', sa.JSON(), nullable=True))


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('draft', schema=None) as batch_op:
        batch_op.drop_column('context')
    with op.batch_alter_table('inbound_message', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_inbound_message_conversation_id'))
        batch_op.drop_column('follows_id')
        batch_op.drop_column('conversation_id')
